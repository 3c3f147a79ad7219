#include "runner/measure/nvml.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/util/util.h"

/* The few NVML declarations used here (nvml.h is not part of the CUDA toolkit on every machine). */
typedef int nvml_ret;           /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef struct nvml_dev *nvml_dev; /* nvmlDevice_t */
enum { NVML_CLOCK_SM_ = 1, NVML_TEMPERATURE_GPU_ = 0 };

struct nvml_gpu {
    void *lib;
    nvml_dev dev;
    int ok;
    char status[256];
    nvml_ret (*shutdown)(void);
    nvml_ret (*clock)(nvml_dev, int, unsigned *);
    nvml_ret (*temp)(nvml_dev, int, unsigned *);
    nvml_ret (*power)(nvml_dev, unsigned *);
    nvml_ret (*reasons)(nvml_dev, unsigned long long *);
    nvml_ret (*energy)(nvml_dev, unsigned long long *); /* NULL when the driver lacks it */
};

static void *sym(nvml_gpu *g, const char *name)
{
    void *p = dlsym(g->lib, name);
    if (!p && g->ok) {
        g->ok = 0;
        snprintf(g->status, sizeof g->status, "unavailable: %s not in libnvidia-ml.so.1", name);
    }
    return p;
}

nvml_gpu *nvml_open(const char *pci_bus_id)
{
    nvml_gpu *g = tl_xcalloc(1, sizeof *g);
    nvml_ret (*init)(void);
    nvml_ret (*by_pci)(const char *, nvml_dev *);
    g->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!g->lib) {
        snprintf(g->status, sizeof g->status, "unavailable: %s", dlerror());
        return g;
    }
    g->ok = 1;
    *(void **)&init = sym(g, "nvmlInit_v2");
    *(void **)&g->shutdown = sym(g, "nvmlShutdown");
    *(void **)&by_pci = sym(g, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&g->clock = sym(g, "nvmlDeviceGetClockInfo");
    *(void **)&g->temp = sym(g, "nvmlDeviceGetTemperature");
    *(void **)&g->power = sym(g, "nvmlDeviceGetPowerUsage");
    /* Renamed in newer drivers; the old name stays as an alias. */
    *(void **)&g->reasons = dlsym(g->lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!g->reasons) *(void **)&g->reasons = sym(g, "nvmlDeviceGetCurrentClocksThrottleReasons");
    /* Optional: telemetry works without it, energy per case does not (nvml_energy_mj says so). */
    *(void **)&g->energy = dlsym(g->lib, "nvmlDeviceGetTotalEnergyConsumption");
    if (!g->ok) return g;
    nvml_ret rc = init();
    if (rc != 0) {
        g->ok = 0;
        g->shutdown = NULL;
        snprintf(g->status, sizeof g->status, "unavailable: nvmlInit_v2 returned %d", rc);
        return g;
    }
    rc = by_pci(pci_bus_id, &g->dev);
    if (rc != 0) {
        g->ok = 0;
        snprintf(g->status, sizeof g->status, "unavailable: no NVML device at PCI %s (%d)", pci_bus_id, rc);
        return g;
    }
    snprintf(g->status, sizeof g->status, "ok");
    return g;
}

void nvml_close(nvml_gpu *g)
{
    if (!g) return;
    if (g->shutdown) g->shutdown();
    if (g->lib) dlclose(g->lib);
    free(g);
}

int nvml_ok(const nvml_gpu *g)
{
    return g && g->ok;
}

const char *nvml_status(const nvml_gpu *g)
{
    return g ? g->status : "unavailable: no GPU";
}

void nvml_read(nvml_gpu *g, nvml_sample *s)
{
    unsigned v;
    unsigned long long r;
    s->sm_clock_mhz = s->temp_c = s->power_w = NAN;
    s->reasons = 0;
    if (!nvml_ok(g)) return;
    if (g->clock(g->dev, NVML_CLOCK_SM_, &v) == 0) s->sm_clock_mhz = v;
    if (g->temp(g->dev, NVML_TEMPERATURE_GPU_, &v) == 0) s->temp_c = v;
    if (g->power(g->dev, &v) == 0) s->power_w = v * 1e-3;
    if (g->reasons(g->dev, &r) == 0) s->reasons = r;
}

int nvml_is_throttled(uint64_t reasons)
{
    return (reasons & (NVML_THROTTLE_MASK)) != 0;
}

int nvml_energy_mj(nvml_gpu *g, unsigned long long *mj)
{
    return nvml_ok(g) && g->energy && g->energy(g->dev, mj) == 0 ? 0 : -1;
}
