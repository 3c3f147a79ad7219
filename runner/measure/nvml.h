/* nvml: the GPU's SM clock, temperature, power and clock-event (throttle) reasons, read through
 * libnvidia-ml.so.1 loaded with dlopen. Absent library, old driver or failing calls degrade to
 * "unavailable", never to an error: telemetry is evidence, not a requirement. */
#ifndef TILELAB_NVML_H
#define TILELAB_NVML_H

#include <stdint.h>

typedef struct nvml_gpu nvml_gpu;

typedef struct {
    double sm_clock_mhz; /* NAN when not read */
    double temp_c;       /* deg C, NAN when not read */
    double power_w;      /* W, NAN when not read */
    uint64_t reasons;    /* NVML clock-event reason bits, 0 when not read */
} nvml_sample;

/* Reasons that slow the clock below what the load asks for: power cap, HW slowdown, SW and HW
 * thermal slowdown, HW power brake. (Idle, application clocks, sync boost and display do not.) */
#define NVML_THROTTLE_MASK (0x04ULL | 0x08ULL | 0x20ULL | 0x40ULL | 0x80ULL)

/* Opens NVML for the GPU with this PCI bus id ("0000:3B:00.0"). Never NULL; see nvml_status. */
nvml_gpu *nvml_open(const char *pci_bus_id);
void nvml_close(nvml_gpu *g);
int nvml_ok(const nvml_gpu *g);
/* "ok", or "unavailable: <why>". */
const char *nvml_status(const nvml_gpu *g);
void nvml_read(nvml_gpu *g, nvml_sample *s);
int nvml_is_throttled(uint64_t reasons);
/* The GPU's energy counter since the driver loaded, mJ (nvmlDeviceGetTotalEnergyConsumption: Volta and later);
 * -1 when there is none. The driver updates it a few times a second, not at each call. */
int nvml_energy_mj(nvml_gpu *g, unsigned long long *mj);

#endif
