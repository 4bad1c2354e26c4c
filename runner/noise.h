/* noise.h — median and its confidence interval's relative half-width
 * (runner/noise.c). */
#ifndef SP_NOISE_H
#define SP_NOISE_H

int sp_median_ci_rank(int n);
double sp_median(const double *s, int n, double *scratch);
double sp_median_noise(const double *s, int n, double *scratch);

#endif
