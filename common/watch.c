/*
 * watch.c - whether another process shares the GPU during a run (common.h, "a shared GPU").
 *
 * A thread asks NVML for the GPU's compute processes every WATCH_PERIOD_MS. NVML ships with the
 * driver, not the toolkit, so it is loaded at run time: the build needs none, and where it is
 * missing the run goes on and says once that it cannot tell.
 */
#include "common.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { WATCH_PERIOD_MS = 100, MAX_PROCESSES = 64 };

/* The little of nvml.h used here, as the NVML API reference gives it: nvmlProcessInfo_t, which
 * nvmlDeviceGetComputeRunningProcesses_v3 fills, and two return codes. */
struct nvml_process {
    unsigned pid;
    unsigned long long used_gpu_memory;
    unsigned gpu_instance_id, compute_instance_id;
};
typedef struct nvml_device *nvml_device;
enum { NVML_SUCCESS = 0, NVML_ERROR_INSUFFICIENT_SIZE = 7 };

static struct {
    void *nvml;
    int (*shutdown)(void);
    int (*processes)(nvml_device, unsigned *, struct nvml_process *);
    nvml_device device;
    pthread_t thread;
    bool running;
    atomic_bool stopping, seen_since_row;
    atomic_uint other_pid; /* the last other process seen, 0 for none */
} watch;

/* Other processes on the GPU now, or -1 when NVML cannot tell; *pid is one of them. A process
 * in another PID namespace (a container) has a number we cannot compare with our own; then every
 * process but one, ours, is another. */
static int others_now(unsigned *pid)
{
    struct nvml_process list[MAX_PROCESSES];
    unsigned count = MAX_PROCESSES;
    int rc = watch.processes(watch.device, &count, list);
    if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
        count = MAX_PROCESSES, rc = NVML_SUCCESS; /* more than we list: others, surely */
    if (rc != NVML_SUCCESS || count == 0) /* we hold a context: NVML that lists none is blind */
        return -1;
    unsigned self = (unsigned)getpid(), others = 0;
    bool self_listed = false;
    for (unsigned i = 0; i < count; i++) {
        if (list[i].pid == self)
            self_listed = true;
        else
            others++, *pid = list[i].pid;
    }
    return (int)(self_listed ? others : others - 1);
}

static void look(void)
{
    unsigned pid = 0;
    if (others_now(&pid) > 0) {
        atomic_store(&watch.other_pid, pid);
        atomic_store(&watch.seen_since_row, true);
    }
}

static void *watcher(void *unused)
{
    (void)unused;
    struct timespec period = {0, WATCH_PERIOD_MS * 1000000L};
    while (!atomic_load(&watch.stopping)) {
        look();
        nanosleep(&period, NULL);
    }
    return NULL;
}

void watch_start(const char *pci_bus_id)
{
    int (*init)(void) = NULL;
    int (*by_bus_id)(const char *, nvml_device *) = NULL;
    watch.nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (watch.nvml) {
        /* ISO C cannot convert a data pointer to a function pointer; POSIX makes dlsym's work. */
        *(void **)&init = dlsym(watch.nvml, "nvmlInit_v2");
        *(void **)&watch.shutdown = dlsym(watch.nvml, "nvmlShutdown");
        *(void **)&by_bus_id = dlsym(watch.nvml, "nvmlDeviceGetHandleByPciBusId_v2");
        *(void **)&watch.processes = dlsym(watch.nvml, "nvmlDeviceGetComputeRunningProcesses_v3");
    }
    unsigned pid;
    if (!init || !watch.shutdown || !by_bus_id || !watch.processes || init() != NVML_SUCCESS) {
        printf("shared GPU: NVML is not here, so this run cannot tell whether another process "
               "uses the GPU\n");
    } else if (by_bus_id(pci_bus_id, &watch.device) != NVML_SUCCESS || others_now(&pid) < 0) {
        printf("shared GPU: NVML does not list this GPU's processes here, so this run cannot "
               "tell whether another process uses it\n");
        watch.shutdown();
    } else {
        look();
        watch.running = pthread_create(&watch.thread, NULL, watcher, NULL) == 0;
        if (!watch.running)
            watch.shutdown();
        return;
    }
    if (watch.nvml)
        dlclose(watch.nvml);
    watch.nvml = NULL;
}

bool watch_seen_since_last(void)
{
    if (watch.running)
        look();
    return atomic_exchange(&watch.seen_since_row, false);
}

unsigned watch_stop(void)
{
    if (watch.running) {
        look();
        atomic_store(&watch.stopping, true);
        pthread_join(watch.thread, NULL);
        watch.shutdown();
        dlclose(watch.nvml);
        watch.running = false;
    }
    return atomic_load(&watch.other_pid);
}
