/* gpu_bw.c — the device's copy bandwidth (bytes read + written per second,
 * median of 20 device-to-device copies of 1 GiB), for the min-bytes bound of
 * bench/gpu_spmv.sh. Prints "copy_gbs: N". */
#include <stdio.h>

#include "../kernels/kernel.h"

int main(void)
{
    double gbps;
    sp_err err;
    if (sp_gpu_copy_bandwidth((size_t)1 << 30, &gbps, &err)) {
        fprintf(stderr, "gpu_bw: %s\n", err.msg);
        return 1;
    }
    printf("copy_gbs: %.1f\n", gbps);
    return 0;
}
