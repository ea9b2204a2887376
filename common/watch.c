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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { WATCH_PERIOD_MS = 100, MAX_PROCESSES = 64 };

/* The little of nvml.h used here, as the NVML API reference gives it: nvmlProcessInfo_t, which
 * nvmlDeviceGetComputeRunningProcesses_v3 fills, and two return codes. Drivers 535.43 to 535.86
 * wrote 8 bytes more per process into the same call; the list leaves room for that, and where
 * its entries are read wrong, only the process id printed suffers, never the count. */
struct nvml_process {
    unsigned pid;
    unsigned long long used_gpu_memory;
    unsigned gpu_instance_id, compute_instance_id;
};
typedef struct nvml_device *nvml_device;
enum { NVML_SUCCESS = 0, NVML_ERROR_INSUFFICIENT_SIZE = 7, SLOT_BYTES = 32 };

/* The first PID namespace's inode number (the kernel's PROC_PID_INIT_INO). */
#define INITIAL_PID_NAMESPACE 0xEFFFFFFCu

static struct {
    void *nvml;
    int (*shutdown)(void);
    int (*processes)(nvml_device, unsigned *, struct nvml_process *);
    nvml_device device;
    pthread_t thread;
    atomic_bool running, stopping, seen;
    atomic_uint other_pid; /* one other process seen, 0 where it could not be told from ours */
} watch;

/* Other processes on the GPU now, or -1 when NVML cannot tell; *pid is one of them, or 0. We
 * hold a context, so we are in the list: every entry but one is another process, whether or not
 * our own id can be found in it. */
static int others_now(unsigned *pid)
{
    struct nvml_process list[MAX_PROCESSES * SLOT_BYTES / sizeof(struct nvml_process)];
    unsigned count = MAX_PROCESSES;
    int rc = watch.processes(watch.device, &count, list);
    if (rc == NVML_ERROR_INSUFFICIENT_SIZE) /* more than MAX_PROCESSES: others, and no ids */
        return *pid = 0, (int)count - 1;
    if (rc != NVML_SUCCESS || count == 0) /* an NVML that lists not even us is blind */
        return -1;
    unsigned self = (unsigned)getpid();
    bool self_listed = false;
    for (unsigned i = 0; i < count; i++)
        self_listed = self_listed || list[i].pid == self;
    *pid = 0;
    for (unsigned i = 0; self_listed && i < count; i++)
        if (list[i].pid != self)
            *pid = list[i].pid;
    return (int)count - 1;
}

static void look(void)
{
    unsigned pid = 0;
    if (others_now(&pid) > 0) {
        atomic_store(&watch.other_pid, pid);
        atomic_store(&watch.seen, true);
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

/* dlsym's result as a function pointer: ISO C has no conversion from a data pointer to a
 * function pointer, POSIX guarantees that the bytes are the function's address. */
static void symbol(void *library, const char *name, void *function_pointer)
{
    void *address = dlsym(library, name);
    memcpy(function_pointer, &address, sizeof address);
}

static void stop_at_exit(void)
{
    unsigned pid;
    watch_stop(&pid);
}

void watch_start(const char *pci_bus_id)
{
    int (*init)(void) = NULL;
    int (*by_bus_id)(const char *, nvml_device *) = NULL;
    watch.nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (watch.nvml) {
        symbol(watch.nvml, "nvmlInit_v2", &init);
        symbol(watch.nvml, "nvmlShutdown", &watch.shutdown);
        symbol(watch.nvml, "nvmlDeviceGetHandleByPciBusId_v2", &by_bus_id);
        symbol(watch.nvml, "nvmlDeviceGetComputeRunningProcesses_v3", &watch.processes);
    }
    unsigned pid;
    if (!init || !watch.shutdown || !by_bus_id || !watch.processes || init() != NVML_SUCCESS) {
        printf("shared GPU: no NVML (or one too old to list processes) here, so this run cannot "
               "tell whether another process uses the GPU\n");
    } else if (by_bus_id(pci_bus_id, &watch.device) != NVML_SUCCESS || others_now(&pid) < 0) {
        printf("shared GPU: NVML does not list this GPU's processes here, so this run cannot "
               "tell whether another process uses it\n");
        watch.shutdown();
    } else {
        /* NVML lists only the processes of our own PID namespace: in a container, another
         * container's work on the GPU goes unseen. */
        struct stat ns;
        if (stat("/proc/self/ns/pid", &ns) == 0 && ns.st_ino != INITIAL_PID_NAMESPACE)
            printf("shared GPU: this run is in a container, and NVML shows it no process "
                   "outside it: another container's use of the GPU would go unseen\n");
        look();
        atomic_store(&watch.running, pthread_create(&watch.thread, NULL, watcher, NULL) == 0);
        if (!atomic_load(&watch.running))
            watch.shutdown();
        else
            atexit(stop_at_exit); /* an exit() on an error path stops the thread first */
        return;
    }
    if (watch.nvml)
        dlclose(watch.nvml);
    watch.nvml = NULL;
}

bool watch_seen(void)
{
    if (atomic_load(&watch.running))
        look();
    return atomic_load(&watch.seen);
}

bool watch_stop(unsigned *pid)
{
    if (atomic_exchange(&watch.running, false)) {
        look();
        atomic_store(&watch.stopping, true);
        pthread_join(watch.thread, NULL);
        watch.shutdown();
        dlclose(watch.nvml);
    }
    *pid = atomic_load(&watch.other_pid);
    return atomic_load(&watch.seen);
}
