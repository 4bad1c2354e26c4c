/* machine_nvml.h — the GPU half of a machine-state reading
 * (runner/exec/machine_nvml.c), for runner/exec/machine.c only. */
#ifndef SP_MACHINE_NVML_H
#define SP_MACHINE_NVML_H

#include "machine.h"

/* Fill s's GPU fields from NVML for the device of NVML index `index`, or
 * of PCI bus id `bus` when bus is not NULL; unknown ones stay NaN and
 * s->gpu_note says why. */
void sp_machine_read_gpu(sp_machine_state *s, int index, const char *bus);

#endif
