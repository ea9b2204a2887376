/*
 * link.c - the PCIe link's peak, against which lesson 04 reads its bandwidth figures.
 */
#include "pinned.h"

/* The link as it runs while copies keep it busy: an idle GPU drops to a slower link, and takes
 * a while to speed up again, so the link is read every millisecond while the copies last, and
 * the fastest reading taken while they were still running counts. */
enum { LINK_PROBE_BYTES = 64u << 20, LINK_PROBE_COPIES = 16 };
static struct pcie_link link_while_copying(int device, size_t bytes)
{
    void *host = host_alloc(PINNED, bytes), *dev;
    CUDA_CHECK(cudaMalloc(&dev, bytes));
    for (int i = 0; i < LINK_PROBE_COPIES; i++)
        CUDA_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, 0));
    struct pcie_link fastest = {.why_unknown = "the copies ended before the link was read"};
    for (double t0 = host_ms(); cudaStreamQuery(0) == cudaErrorNotReady;) {
        struct pcie_link now = gpu_pcie_link_now(device);
        if (!now.known) {
            fastest = now;
            break;
        }
        if (now.peak_gbps > fastest.peak_gbps)
            fastest = now;
        for (double t = host_ms(); host_ms() - t < 1.0;)
            ;
        if (host_ms() - t0 > 1000) /* the copies are stuck: a wait below reports it */
            break;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(dev));
    host_free(PINNED, host);
    return fastest;
}

/* The link's peak, against which the sweep's figures are read: the usable maximum where the
 * ports above the GPU show it, else the link as it ran; never the GPU's own maximum alone, which
 * a slower slot caps. The GPU's own link running faster than the maximum of the port at its
 * other end says that the ports are a VM's inventions. Printed, and described in `params` for
 * the bandwidth rows. The copies that keep the link busy are of at most `bytes`, the largest
 * the run has room for. */
struct pcie_link usable_link(int device, size_t bytes, char *params, size_t len)
{
    size_t probe = bytes < LINK_PROBE_BYTES ? bytes : LINK_PROBE_BYTES;
    struct pcie_link most = gpu_pcie_link(device), now = link_while_copying(device, probe);
    bool invented = most.upstream_seen && now.known && now.peak_gbps > most.own_link_gbps;
    bool upstream = most.known && most.upstream_seen && !invented;
    struct pcie_link link = upstream ? most : now;
    if (!link.known && !link.why_unknown)
        link.why_unknown = most.why_unknown;
    if (link.known) {
        printf("link: PCIe gen %d x%d (%.1f GT/s per lane): %.1f GB/s per direction at most,\n"
               "  %s\n", link.generation, link.width, link.gts, link.peak_gbps,
               upstream   ? "the smaller of the GPU's maximum and that of the ports above it"
               : invented ? "the link as it ran during a copy (faster than the port above the "
                            "GPU claims: a VM's port)"
                          : "the link as it ran during a copy (no port above the GPU shows its "
                            "maximum)");
        snprintf(params, len, "peak_gbps=%.2f;link=gen%d_x%d_%s", link.peak_gbps,
                 link.generation, link.width, upstream ? "upstream" : "during_copy");
    } else {
        printf("link: peak unknown: %s; the figures stand alone\n", link.why_unknown);
        snprintf(params, len, "link=unknown");
    }
    return link;
}
