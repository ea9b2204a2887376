/*
 * gpu.c - the half of common.h that talks to the CUDA runtime: error reports, choosing the GPU,
 * the header line every program prints, and the capacity check before allocating.
 */
#include "common.h"
#include "kernels.h"

#include <ctype.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>

cudaError_t cuda_report(cudaError_t err, const char *expr, const char *file, int line)
{
    if (err != cudaSuccess)
        fprintf(stderr, "%s: %s failed: %s (%s) at %s:%d\n", program_name, expr,
                cudaGetErrorName(err), cudaGetErrorString(err), file, line);
    return err;
}

/* The errors that mean "no usable GPU here" rather than "something went wrong". */
static const char *no_gpu_remedy(cudaError_t err)
{
    switch (err) {
    case cudaErrorNoDevice:
        return "no CUDA-capable GPU is visible; check nvidia-smi and CUDA_VISIBLE_DEVICES";
    case cudaErrorInsufficientDriver:
        return "the NVIDIA driver is missing or older than this CUDA runtime; install or update it";
    case cudaErrorSystemDriverMismatch:
        return "the driver's user library and kernel module differ; reboot or reinstall the driver";
    case cudaErrorDevicesUnavailable:
        return "every GPU is busy or in exclusive use by another process";
    default:
        return NULL;
    }
}

/* The kernel module's version ("580.159.04"), which the CUDA runtime does not report: the first
 * word of /proc/driver/nvidia/version that starts with a digit and holds a dot. */
static bool read_module_version(char *buf, size_t len)
{
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return false;
    char line[512];
    bool found = false;
    if (fgets(line, sizeof line, f)) {
        for (char *word = strtok(line, " \t\n"); word && !found; word = strtok(NULL, " \t\n")) {
            if (isdigit((unsigned char)word[0]) && strchr(word, '.')) {
                snprintf(buf, len, "%s", word);
                found = true;
            }
        }
    }
    fclose(f);
    return found;
}

int gpu_open(int device, struct gpu_info *info)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    const char *remedy = no_gpu_remedy(err);
    if (remedy) {
        fprintf(stderr, "%s needs an NVIDIA GPU but cannot use one here (%s: %s): %s, "
                        "or run `make plots` to see the shipped reference results.\n",
                program_name, cudaGetErrorName(err), cudaGetErrorString(err), remedy);
        return EXIT_NO_GPU;
    }
    if (CUDA_REPORT(err) != cudaSuccess)
        return EXIT_ERROR;
    if (device >= count) {
        fprintf(stderr, "%s: --device %d is out of range: this machine has %d GPU%s (0 to %d)\n",
                program_name, device, count, count == 1 ? "" : "s", count - 1);
        return EXIT_USAGE;
    }

    struct cudaDeviceProp prop;
    int major = 0, minor = 0, driver = 0, runtime = 0, memory_khz = 0, bus_bits = 0;
    *info = (struct gpu_info){.device = device};
    if (CUDA_REPORT(cudaSetDevice(device)) ||
        CUDA_REPORT(cudaGetDeviceProperties(&prop, device)) ||
        CUDA_REPORT(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device)) ||
        CUDA_REPORT(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device)) ||
        CUDA_REPORT(cudaDeviceGetAttribute(&info->copy_engines, cudaDevAttrAsyncEngineCount,
                                           device)) ||
        CUDA_REPORT(cudaDeviceGetAttribute(&info->multiprocessors,
                                           cudaDevAttrMultiProcessorCount, device)) ||
        CUDA_REPORT(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device)) ||
        CUDA_REPORT(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device)) ||
        CUDA_REPORT(cudaDriverGetVersion(&driver)) ||
        CUDA_REPORT(cudaRuntimeGetVersion(&runtime)) ||
        /* Creating the context costs tens of milliseconds: pay it here, outside every timing. */
        CUDA_REPORT(cudaFree(NULL)))
        return EXIT_ERROR;

    snprintf(info->name, sizeof info->name, "%s", prop.name);
    snprintf(info->cc, sizeof info->cc, "%d.%d", major, minor);
    if (!read_module_version(info->driver, sizeof info->driver))
        snprintf(info->driver, sizeof info->driver, "cuda %d.%d", driver / 1000,
                 driver % 1000 / 10);
    snprintf(info->runtime, sizeof info->runtime, "%d.%d", runtime / 1000, runtime % 1000 / 10);
    info->global_mem_bytes = prop.totalGlobalMem;
    /* Double data rate: two transfers per clock on each of the bus's lines. */
    info->memory_peak_gbps = 2.0 * memory_khz * 1e3 * (bus_bits / 8) / 1e9;
    return EXIT_VERIFIED;
}

void gpu_print_header(const struct gpu_info *info)
{
    char mem[32];
    printf("GPU %d: %s | cc %s | %d SMs | %s | driver %s | runtime %s | %d copy engine%s\n",
           info->device, info->name, info->cc, info->multiprocessors,
           format_bytes(info->global_mem_bytes, mem, sizeof mem), info->driver, info->runtime,
           info->copy_engines, info->copy_engines == 1 ? "" : "s");
}

static bool read_sysfs(const char *bus_id, const char *file, char *buf, size_t len)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/%s", bus_id, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    return ok;
}

struct pcie_link gpu_pcie_link(int device)
{
    /* Transfer rate per lane of generations 1 to 5, in GT/s. */
    static const double gts_of_generation[] = {0, 2.5, 5, 8, 16, 32};
    struct pcie_link link = {.known = false};
    char bus_id[32], speed[64], width[16];
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess)
        return link;
    for (char *c = bus_id; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    if (!read_sysfs(bus_id, "max_link_speed", speed, sizeof speed) ||
        !read_sysfs(bus_id, "max_link_width", width, sizeof width) ||
        sscanf(speed, "%lf", &link.gts) != 1 || sscanf(width, "%d", &link.width) != 1 ||
        link.width <= 0)
        return link;
    for (int g = 1; g < (int)(sizeof gts_of_generation / sizeof gts_of_generation[0]); g++)
        if (fabs(link.gts - gts_of_generation[g]) < 0.1)
            link.generation = g;
    if (link.generation == 0)
        return link;
    /* Generations 1-2 send 10 bits for every 8 of data; 3-5 send 130 for every 128. */
    double line_code = link.generation <= 2 ? 8.0 / 10 : 128.0 / 130;
    link.peak_gbps = link.gts * link.width * line_code / 8;
    link.known = true;
    return link;
}

int gpu_check_capacity(size_t device_bytes, size_t host_bytes)
{
    size_t free_bytes = 0, total_bytes = 0;
    if (CUDA_REPORT(cudaMemGetInfo(&free_bytes, &total_bytes)) != cudaSuccess)
        return EXIT_ERROR;
    char need[32], have[32], total[32];
    if (device_bytes > free_bytes) {
        fprintf(stderr, "%s: this run needs %s of GPU memory, but only %s of %s is free; "
                        "choose a smaller --size\n", program_name,
                format_bytes(device_bytes, need, sizeof need),
                format_bytes(free_bytes, have, sizeof have),
                format_bytes(total_bytes, total, sizeof total));
        return EXIT_ERROR;
    }
    size_t host_free = host_available_bytes();
    if (host_free && host_bytes > host_free) {
        fprintf(stderr, "%s: this run needs %s of host memory, but only %s is available; "
                        "choose a smaller --size\n", program_name,
                format_bytes(host_bytes, need, sizeof need),
                format_bytes(host_free, have, sizeof have));
        return EXIT_ERROR;
    }
    return EXIT_VERIFIED;
}

int lesson_open(const char *lesson, const struct common_args *args, size_t device_bytes,
                size_t host_bytes, struct gpu_info *gpu, struct csv *csv)
{
    int rc = gpu_open(args->device, gpu);
    if (rc != EXIT_VERIFIED)
        return rc;
    gpu_print_header(gpu);
    if ((rc = gpu_check_capacity(device_bytes, host_bytes)) != EXIT_VERIFIED)
        return rc;
    return csv_open(csv, args->csv, lesson, gpu) == 0 ? EXIT_VERIFIED : EXIT_ERROR;
}

cudaError_t gate_create(struct gate *g)
{
    *g = (struct gate){NULL, NULL, NULL, NULL};
    void *host, *device;
    /* Mapped: the GPU reads and writes this host memory itself, over the link. */
    cudaError_t err = CUDA_REPORT(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
    if (err != cudaSuccess)
        return err;
    g->flag = host;
    g->timed_out = g->flag + 1;
    if ((err = CUDA_REPORT(cudaHostGetDevicePointer(&device, host, 0))) != cudaSuccess) {
        gate_destroy(g);
        return err;
    }
    g->d_flag = device;
    g->d_timed_out = g->d_flag + 1;
    return cudaSuccess;
}

void gate_destroy(struct gate *g)
{
    if (g->flag)
        CUDA_REPORT(cudaFreeHost((void *)g->flag));
    *g = (struct gate){NULL, NULL, NULL, NULL};
}

cudaError_t gate_close(const struct gate *g, cudaStream_t stream)
{
    *g->flag = 0;
    *g->timed_out = 0;
    return launch_wait_for_flag(g->d_flag, GATE_TIMEOUT_NS, g->d_timed_out, stream);
}

void gate_open(const struct gate *g)
{
    atomic_thread_fence(memory_order_seq_cst); /* everything issued before, then the flag */
    *g->flag = 1;
}

bool gate_held(const struct gate *g)
{
    if (!*g->timed_out)
        return true;
    fprintf(stderr, "%s: a gate opened by itself after %.0f ms: the host could not open it, "
                    "probably because the work queued behind it filled the stream's queue\n",
            program_name, GATE_TIMEOUT_NS / 1e6);
    return false;
}
