/*
 * gpu.c - the half of common.h that talks to the CUDA runtime: error reports, choosing the GPU,
 * the header line every program prints, and the capacity check before allocating.
 */
#define _XOPEN_SOURCE 700 /* realpath() */
#include "common.h"
#include "kernels.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

cudaError_t cuda_report(cudaError_t err, const char *expr, const char *file, int line)
{
    if (err != cudaSuccess)
        fprintf(stderr, "%s: %s failed: %s (%s) at %s:%d\n", program_name, expr,
                cudaGetErrorName(err), cudaGetErrorString(err), file, line);
    return err;
}

/* The errors that mean "no usable GPU here" rather than "something went wrong": what is true of
 * the machine, and what to do about it. */
static const char *no_gpu_remedy(cudaError_t err)
{
    switch (err) {
    case cudaErrorNoDevice:
        return "no CUDA-capable GPU is visible (check nvidia-smi and CUDA_VISIBLE_DEVICES)";
    case cudaErrorInsufficientDriver: /* also what a machine with no driver at all gets */
        /* A loaded kernel module, or WSL2's GPU device, says that a driver is there. */
        return access("/proc/driver/nvidia/version", R_OK) == 0 || access("/dev/dxg", F_OK) == 0
                   ? "the NVIDIA driver is older than this CUDA runtime (update the driver)"
                   : "no NVIDIA driver is loaded here (no GPU, or its driver is not installed)";
    case cudaErrorSystemDriverMismatch:
        return "the driver's user library and kernel module differ (reboot, or reinstall it)";
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
        /* The machine's state first: the CUDA error's own words ("driver version is
         * insufficient") would read as "upgrade" where there is no driver at all. */
        fprintf(stderr, "%s needs an NVIDIA GPU: %s; CUDA said %s. Run `make plots` to see the "
                        "shipped reference results.\n",
                program_name, remedy, cudaGetErrorName(err));
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

static bool read_text(const char *dir, const char *file, char *buf, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    return ok;
}

/* One PCIe device's link speed and width, `which` being "max" or "current"; generation 0 when
 * the directory has none or the speed is not one of generations 1 to 5. */
static struct pcie_link read_link(const char *dir, const char *which)
{
    /* Transfer rate per lane of generations 1 to 5, in GT/s. */
    static const double gts_of_generation[] = {0, 2.5, 5, 8, 16, 32};
    struct pcie_link link = {.why_unknown = "its PCIe link is not visible here (sysfs)"};
    char file[32], speed[64], width[16];
    snprintf(file, sizeof file, "%s_link_speed", which);
    if (!read_text(dir, file, speed, sizeof speed) || sscanf(speed, "%lf", &link.gts) != 1)
        return link;
    snprintf(file, sizeof file, "%s_link_width", which);
    if (!read_text(dir, file, width, sizeof width) || sscanf(width, "%d", &link.width) != 1 ||
        link.width <= 0)
        return link;
    for (int g = 1; g < (int)(sizeof gts_of_generation / sizeof gts_of_generation[0]); g++)
        if (fabs(link.gts - gts_of_generation[g]) < 0.1)
            link.generation = g;
    return link;
}

static struct pcie_link with_peak(struct pcie_link link)
{
    if (link.generation == 0)
        return link;
    /* Generations 1-2 send 10 bits for every 8 of data; 3-5 send 130 for every 128. */
    double line_code = link.generation <= 2 ? 8.0 / 10 : 128.0 / 130;
    link.peak_gbps = link.gts * link.width * line_code / 8;
    link.known = true;
    link.why_unknown = NULL;
    return link;
}

/* The GPU's directory in sysfs (its real path, under its ports), or false when the GPU has no
 * link of its own to read. */
static bool gpu_sysfs_dir(int device, char dir[PATH_MAX], const char **why)
{
    int integrated = 0, host_page_tables = 0;
    char bus_id[32], path[64];
    if (CUDA_REPORT(cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, device)) ||
        CUDA_REPORT(cudaDeviceGetAttribute(
            &host_page_tables, cudaDevAttrPageableMemoryAccessUsesHostPageTables, device)))
        *why = "the GPU's attributes could not be read (the error is above)";
    else if (integrated)
        *why = "an integrated GPU shares the CPU's memory: there is no link to peak";
    else if (host_page_tables)
        *why = "this GPU reaches host memory through the CPU's page tables (NVLink-C2C or "
               "similar), not PCIe";
    else if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess)
        *why = "the GPU's PCI address is not known";
    else {
        for (char *c = bus_id; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s", bus_id);
        if (realpath(path, dir))
            return true;
        *why = "its PCIe link is not visible here (sysfs)";
    }
    return false;
}

/* A path's slower speed and narrower width. */
static struct pcie_link slower(struct pcie_link a, struct pcie_link b)
{
    if (b.gts < a.gts)
        a.gts = b.gts, a.generation = b.generation;
    if (b.width < a.width)
        a.width = b.width;
    return a;
}

struct pcie_link gpu_pcie_link(int device)
{
    char dir[PATH_MAX];
    struct pcie_link link = {.why_unknown = NULL};
    if (!gpu_sysfs_dir(device, dir, &link.why_unknown))
        return link;
    link = read_link(dir, "max");
    if (link.generation == 0)
        return link;
    /* Up the tree: every port above the GPU that has a link of its own caps it. The first one
     * read is at the other end of the GPU's own link. */
    for (char *slash = strrchr(dir, '/'); slash && slash != dir; slash = strrchr(dir, '/')) {
        *slash = '\0';
        struct pcie_link port = read_link(dir, "max");
        if (port.generation == 0)
            continue;
        if (!link.upstream_seen)
            link.own_link_gbps = with_peak(slower(link, port)).peak_gbps;
        link.upstream_seen = true;
        link = slower(link, port);
    }
    link = with_peak(link);
    if (!link.upstream_seen)
        link.own_link_gbps = link.peak_gbps;
    return link;
}

struct pcie_link gpu_pcie_link_now(int device)
{
    char dir[PATH_MAX];
    struct pcie_link link = {.why_unknown = NULL};
    if (!gpu_sysfs_dir(device, dir, &link.why_unknown))
        return link;
    return with_peak(read_link(dir, "current"));
}

enum { MAX_SIZED = 4 };

/* "--size or --sweep-max": the flags a user can lower. */
static const char *flag_list(const struct sized *sizes, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : " or ",
                                 sizes[i].flag);
    return buf;
}

int fit_sizes(struct sized *sizes, size_t n)
{
    size_t gpu_free = 0, gpu_total = 0, before[MAX_SIZED];
    if (n > MAX_SIZED) {
        fprintf(stderr, "%s: fit_sizes() takes at most %d sizes\n", program_name, MAX_SIZED);
        return EXIT_ERROR;
    }
    if (CUDA_REPORT(cudaMemGetInfo(&gpu_free, &gpu_total)) != cudaSuccess)
        return EXIT_ERROR;
    size_t host_free = host_available_bytes();
    bool host_known = host_free != SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        before[i] = *sizes[i].value;
    int halvings = sizes_halve_to_fit(sizes, n, 0.9 * (double)gpu_free,
                                      host_known ? 0.8 * (double)host_free : 0);
    double gpu, host;
    sized_holdings(sizes, n, &gpu, &host);
    char a[32], b[32], c[32], d[32], flags[64];
    if (gpu > (double)gpu_free || (host_known && host > (double)host_free)) {
        bool on_gpu = gpu > (double)gpu_free;
        fprintf(stderr, "%s: this run needs %s of %s memory, but only %s is %s; choose a smaller "
                "%s\n", program_name, format_bytes((size_t)(on_gpu ? gpu : host), a, sizeof a),
                on_gpu ? "GPU" : "host", format_bytes(on_gpu ? gpu_free : host_free, b, sizeof b),
                on_gpu ? "free" : "available", flag_list(sizes, n, flags, sizeof flags));
        return EXIT_ERROR;
    }
    printf("memory: %s on the GPU (%s free), %s on the host (%s available): ",
           format_bytes((size_t)gpu, a, sizeof a), format_bytes(gpu_free, b, sizeof b),
           format_bytes((size_t)host, c, sizeof c),
           host_known ? format_bytes(host_free, d, sizeof d) : "unknown");
    bool any_default = false;
    for (size_t i = 0; i < n; i++)
        any_default = any_default || !sizes[i].given;
    if (halvings == 0) {
        printf("%s\n", any_default ? "the default sizes fit" : "the sizes as given");
        return EXIT_VERIFIED;
    }
    const char *separator = "halved to fit:";
    for (size_t i = 0; i < n; i++)
        if (*sizes[i].value != before[i]) {
            printf("%s %s %s to %s", separator, sizes[i].flag, format_bytes(before[i], a, sizeof a),
                   format_bytes(*sizes[i].value, b, sizeof b));
            separator = ",";
        }
    printf("\n");
    return EXIT_VERIFIED;
}

int lesson_open(const char *lesson, const struct common_args *args, struct sized *sizes,
                size_t n_sizes, struct gpu_info *gpu, struct csv *csv)
{
    int rc = gpu_open(args->device, gpu);
    if (rc != EXIT_VERIFIED)
        return rc;
    gpu_print_header(gpu);
    if ((rc = fit_sizes(sizes, n_sizes)) != EXIT_VERIFIED)
        return rc;
    if (csv_open(csv, args->csv, lesson, gpu))
        return EXIT_ERROR;
    char bus_id[32];
    if (CUDA_REPORT(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, args->device)))
        return EXIT_ERROR;
    watch_start(bus_id);
    return EXIT_VERIFIED;
}

int lesson_close(struct csv *csv)
{
    int rows = csv->rows, unsteady = csv->unsteady_rows, rc = csv_close(csv);
    unsigned pid = 0;
    fflush(stdout); /* the warning, on stderr, comes after everything printed before it */
    if (watch_stop(&pid)) {
        char who[32] = "";
        if (pid)
            snprintf(who, sizeof who, " (pid %u)", pid);
        fprintf(stderr, "%s: warning: another process%s used this GPU during the run, so its "
                "figures may be low; the CSV marks the rows written since with contended=1\n",
                program_name, who);
    }
    if (unsteady)
        printf("note: %d of %d measurements spread, min to max, over %.0f%% of their median: "
               "their medians are what the tables print\n", unsteady, rows,
               100 * UNSTEADY_SPREAD);
    return rc;
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
