"""The figures' words in Chinese, for `make plots LANG=zh` (plot_all.py --lang zh).

LABELS holds every label the figures write, keyed by its English text; a missing one is an error
(the tests draw every figure in Chinese). NAMES translates the names the results carry (memory
kinds, runs, regimes), which new lessons may add to: a name it does not know stays English.
Figures are filled in after translation, so both editions print them alike.
"""
import re

# Fonts with Chinese characters, the most common first; matplotlib takes each glyph from the
# first font of its list that has it, so Latin text keeps the default font.
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Micro Hei",
             "WenQuanYi Zen Hei", "Microsoft YaHei", "PingFang SC", "Heiti SC", "SimHei")
NO_FONT = ("plots: --lang zh needs a font with Chinese characters, and matplotlib finds none: "
           "install fonts-wqy-microhei or fonts-noto-cjk (Debian, Ubuntu), "
           "google-noto-sans-cjk-fonts (Fedora), then run it again")

LABELS = {
    # shared
    "transfer size (binary units)": "传输大小（二进制单位）",
    " (reference)": "（参考结果）",
    " (CONTENDED: the GPU was shared during the run)": "（被占用：运行期间有其他进程在用这块 GPU）",
    # bandwidth
    "{kinds} ({lesson})": "{kinds}（{lesson}）",
    "{kinds} (01: each a blocking call, host clock)": "{kinds}（01：每次一个阻塞调用，主机时钟）",
    " (within {gbps:.1f} GB/s)": "（相差不到 {gbps:.1f} GB/s）",
    "best measured {gbps:.1f} GB/s": "实测最高 {gbps:.1f} GB/s",
    "PCIe peak {gbps:.1f} GB/s per direction": "PCIe 峰值：每个方向 {gbps:.1f} GB/s",
    "bandwidth (GB/s, 1 GB = 1e9 bytes)": "带宽（GB/s，1 GB = 1e9 字节）",
    "Copy bandwidth by transfer size (median; solid H2D, dashed D2H, dotted: both ways at once)":
        "各传输大小的拷贝带宽（中位数；实线 H2D，虚线 D2H，点线：双向同时）",
    # alignment
    "+{offset} B": "+{offset} B",
    "+{offset} B (256-aligned)": "+{offset} B（256 字节对齐）",
    "{kind} {direction}": "{kind} {direction}",
    "speed at the offset / at offset 0\n(in the same repetition; median)":
        "该偏移的速度 / 偏移 0 的速度\n（同一次重复中测得；取中位数）",
    "{kind} {direction}, the device address offset": "{kind} {direction}，设备地址偏移",
    "offset of the address": "地址偏移",
    "Copy speed at an address offset from an aligned one, relative to offset 0\n"
    "(lecture 7.2 predicts dashed lines, unaligned, below 1, pinned most)":
        "地址相对对齐地址偏移后的拷贝速度（以偏移 0 为 1）\n"
        "（讲义 7.2 预测：虚线，即未对齐的偏移，低于 1，固定内存最明显）",
    # phases
    "01 synchronous\npageable, {size}\nper vector": "01 同步\n可分页内存，每个向量\n{size}",
    "05 synchronous\npinned, {size}\nper vector": "05 同步\n固定内存，每个向量\n{size}",
    "05 asynchronous\npinned, {size}\nper vector": "05 异步\n固定内存，每个向量\n{size}",
    "h2d": "H2D",
    "kernel": "核函数",
    "d2h": "D2H",
    "copies + kernel": "拷贝 + 核函数",
    "calls": "发出调用",
    "CPU work": "CPU 工作",
    "final wait": "最后的等待",
    "05 moves {times:.0f}x the data of 01 in {ratio:.2f}x the time: pinned memory (lesson 04)":
        "05 搬运的数据是 01 的 {times:.0f} 倍，用时是它的 {ratio:.2f} 倍：固定内存（第 04 课）",
    "blocked in CUDA calls": "阻塞在 CUDA 调用中",
    "free for the CPU's own work": "CPU 空出来做自己的工作",
    "issuing the calls": "发出调用",
    "{name}\n{ms:.1f} ms": "{name}\n{ms:.1f} ms",
    "{name} {ms:.2g}": "{name} {ms:.2g}",
    "{ms:.1f} ms": "{ms:.1f} ms",
    "\n({parts} ms)": "\n（{parts} ms）",
    " ({ms:.2f} ms: too thin to see)": "（{ms:.2f} ms：太窄，看不见）",
    "time as the CPU saw it (ms, host clock, median)": "CPU 看到的时间（ms，主机时钟，中位数）",
    "Where the CPU's time goes: c = a + b, lessons 01 and 05":
        "CPU 的时间花在哪里：c = a + b，第 01 课与第 05 课",
    "\n({note})": "\n（{note}）",
    # timeline
    "H2D copies": "H2D 拷贝",
    "kernels": "核函数",
    "D2H copies": "D2H 拷贝",
    "all three at once": "三者同时",
    "CPU copying": "CPU 拷贝",
    "all four at once": "四者同时",
    "CPU prepare": "CPU 准备",
    "CPU process": "CPU 处理",
    "busy: share of the run's span with at least one such operation running (%)":
        "忙碌：运行时间跨度中至少有一个此类操作在执行的比例（%）",
    "{run}: {ms:.1f} ms": "{run}：{ms:.1f} ms",
    "time on the GPU (ms, from each run's first operation)":
        "GPU 上的时间（ms，从每次运行的第一个操作算起）",
    "chunk": "分块",
    "06_overlap_pipeline: copies and kernels as CUPTI recorded them":
        "06_overlap_pipeline：CUPTI 记录下的拷贝与核函数",
    # efficiency
    "streams (= device buffers)": "流（= 设备缓冲区）",
    "chunks": "分块数",
    "floor across shapes / time": "所有形状共用的下限 / 用时",
    "overlap efficiency: max(kernels alone, copies alone) / time":
        "重叠效率：max(纯计算, 纯拷贝) / 用时",
    "06: time by shape (ms, the fastest in bold) and floor / time\n"
    "floor across shapes {floor:.2f} ms; {size}, x = a x + c {iters:g} times per element":
        "06：各形状的用时（ms，最快者加粗）与 下限 / 用时\n"
        "所有形状共用的下限 {floor:.2f} ms；{size}，每个元素执行 {iters:g} 次 x = a x + c",
    # intensity
    "ceiling: serial time / the floor, the slower of these kernels\nalone and the fastest copies "
    "alone of any shape":
        "上限：串行时间 / 下限；下限取这些核函数的纯计算\n与任一形状中最快的纯拷贝两者中较慢的一个",
    "pipeline: serial time / pipeline": "流水线：串行时间 / 流水线时间",
    "kernel iterations per element (arithmetic intensity)": "每个元素的核函数迭代次数（计算强度）",
    "speed-up over one stream, one buffer (x)": "相对单流单缓冲的加速比（倍）",
    "06: what overlap buys, from copy-bound to compute-bound":
        "06：重叠带来多少收益，从拷贝受限到计算受限",
    # staged
    "staged pipeline, {copies}": "暂存式流水线，{copies}",
    "both sides at once, {copies}": "两侧同时运行，{copies}",
    "its CPU copies alone, {copies}": "其 CPU 拷贝单独运行，{copies}",
    "the host's ceiling (both sides at once, at their fastest)": "主机上限（两侧同时运行中最快的一次）",
    "data already pinned (the pinned ceiling)": "数据已在固定内存中（固定内存上限）",
    "its GPU work alone (no CPU copies)": "其 GPU 工作单独运行（没有 CPU 拷贝）",
    "cudaMemcpyAsync from pageable memory": "从可分页内存执行 cudaMemcpyAsync",
    "lesson 01's way": "第 01 课的做法",
    "{label}: {gbps:.1f} GB/s": "{label}：{gbps:.1f} GB/s",
    "CPU threads copying into and out of the staging buffers": "拷入、拷出暂存缓冲区的 CPU 线程数",
    "GB/s in and out (1 GB = 1e9 bytes)": "进出合计 GB/s（1 GB = 1e9 字节）",
    "06 part 5: the data in pageable memory, staged by the CPU (median, host clock)":
        "06 第 5 部分：数据在可分页内存中，由 CPU 暂存（中位数，主机时钟）",
    # across GPUs
    "{kind}\n{direction}": "{kind}\n{direction}",
    "{kind}, both ways at once\n{direction}": "{kind}，双向同时\n{direction}",
    "{direction}: GB/s (1e9 bytes/s)": "{direction}：GB/s（1e9 字节/秒）",
    "Host-device copy bandwidth across GPUs, by memory kind (median; transfer size along each "
    "axis)": "各 GPU 的主机-设备拷贝带宽，按内存种类（中位数；横轴为传输大小）",
    "overlap efficiency by regime\n(1 = as fast as its slower half)": "各情形的重叠效率\n（1 = 与其较慢的一半一样快）",
    "kernel iterations per element": "每个元素的核函数迭代次数",
    "speed-up by\narithmetic intensity": "不同计算强度下的\n加速比",
    "06_overlap_pipeline across GPUs": "各 GPU 上的 06_overlap_pipeline",
}

# (pattern, Chinese) pairs, tried in order; groups fill the Chinese in.
NAMES = [(re.compile(pattern), chinese) for pattern, chinese in (
    (r"^pageable$", "可分页"),
    (r"^pinned$", "固定"),
    (r"^registered$", "注册"),
    (r"^write_combined$", "写合并"),
    (r"^write-combined$", "写合并"),
    (r"^mapped$", "映射"),
    (r"^(.*), both at once$", "{0}，双向同时"),
    (r"^serial$", "串行"),
    (r"^pipelined$", "流水线"),
    (r"^by_role$", "按角色分流"),
    (r"^staged$", "暂存式"),
    (r"^memcpy$", "memcpy"),
    (r"^streaming$", "流式存储"),
    (r"^copy-bound$", "拷贝受限"),
    (r"^balanced$", "平衡"),
    (r"^compute-bound$", "计算受限"),
    (r"^serial: (\d+) streams?, (\d+) buffers?$", "串行：{0} 个流，{1} 个缓冲区"),
    (r"^pipelined: (\d+) streams?, (\d+) buffers?$", "流水线：{0} 个流，{1} 个缓冲区"),
    (r"^by role: (\d+) streams?, (\d+) buffers?$", "按角色分流：{0} 个流，{1} 个缓冲区"),
    (r"^staged: pageable data, (\d+) CPU threads?$", "暂存式：数据在可分页内存，{0} 个 CPU 线程"),
)]
