#include "io/import/run_log.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "core/units.h"
#include "io/import/log_text.h"
#include "io/import/oom_message.h"

namespace shardcalc {

namespace {

using log_text::bad_line;
using log_text::number_after;
using log_text::number_at;
using log_text::trim;

// Sizes in the logs' units (core/units.h): Megatron's report_memory divides by 1024.0 * 1024.0, DeepSpeed's
// see_memory_usage by 1024 ** 3.

// "[Rank 3] (after 20 iterations) memory (MB) | allocated: ... | max allocated: ... | reserved: ... | max reserved: ...",
// or without "[Rank N]" (rank 0 reports).
MeasuredMemory memory_line(const std::string& text, size_t line) {
    MeasuredMemory m;
    if (const size_t at = text.find("[Rank "); at != std::string::npos) {
        const auto rank = number_at(text.substr(at + 6));
        if (!rank || *rank != std::floor(*rank)) bad_line(line, "a rank that is not a whole number");
        m.rank = static_cast<int64_t>(*rank);
    }
    std::map<std::string, double> fields;
    size_t pos = text.find('|');
    while (pos != std::string::npos) {
        const size_t next = text.find('|', pos + 1);
        const std::string field = text.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
        if (const size_t colon = field.find(':'); colon != std::string::npos) {
            const auto value = number_at(field.substr(colon + 1));
            if (!value) bad_line(line, "\"" + trim(field) + "\" is not a number of MB");
            fields[trim(field.substr(0, colon))] = *value * kMiB;
        }
        pos = next;
    }
    for (const char* key : {"allocated", "max allocated", "reserved", "max reserved"})
        if (!fields.count(key)) bad_line(line, std::string("the memory line has no \"") + key + "\"");
    m.allocated = fields["allocated"];
    m.max_allocated = fields["max allocated"];
    m.reserved = fields["reserved"];
    m.max_reserved = fields["max reserved"];
    return m;
}

// DeepSpeed's see_memory_usage (deepspeed/runtime/utils.py), printed by rank 0 only:
// "... see_memory_usage] MA 4.96 GB         Max_MA 5.09 GB         CA 6.39 GB         Max_CA 6 GB". Its GB is 2^30
// bytes (it divides by 1024 ** 3), MA and Max_MA rounded to 2 decimals, Max_CA to a whole GB; Max_MA and Max_CA are
// the peaks since the previous report (it resets the peak counters after printing).
MeasuredMemory deepspeed_line(const std::string& text, size_t line) {
    MeasuredMemory m;
    const std::pair<const char*, double*> keys[] = {{" MA ", &m.allocated}, {"Max_MA ", &m.max_allocated},
                                                     {" CA ", &m.reserved}, {"Max_CA ", &m.max_reserved}};
    for (const auto& [key, out] : keys) {
        const auto gb = number_after(text, key);
        if (!gb) bad_line(line, std::string("the see_memory_usage line has no number after \"") + trim(key) + "\"");
        *out = *gb * kGiB;
    }
    return m;
}

// A size as torch.cuda.memory_summary prints it (torch/cuda/memory.py _format_size: "512 B", "682537 KiB",
// "65430 MiB", "3115 GiB"), in bytes.
std::optional<double> summary_size(const std::string& cell) {
    const auto v = number_at(cell);
    if (!v) return std::nullopt;
    const std::string t = trim(cell);
    const size_t unit = t.find_first_of("BKMGTP");
    if (unit == std::string::npos) return std::nullopt;
    const std::pair<const char*, double> units[] = {{"B", 1}, {"KiB", 1024}, {"MiB", kMiB}, {"GiB", kGiB},
                                                    {"TiB", kGiB * 1024}, {"PiB", kGiB * 1024 * 1024}};
    for (const auto& [name, scale] : units)
        if (trim(t.substr(unit)) == name) return *v * scale;
    return std::nullopt;
}

// One row of a memory_summary table, "| Allocated memory      |  32711 MiB |  52084 MiB | ... |": its current and peak
// sizes (the first two cells after the metric's name).
std::pair<double, double> summary_row(const std::string& text, size_t at, size_t line) {
    std::vector<std::string> cells;
    size_t pos = text.find('|', at);
    while (pos != std::string::npos && cells.size() < 2) {
        const size_t next = text.find('|', pos + 1);
        if (next == std::string::npos) break;
        cells.push_back(text.substr(pos + 1, next - pos - 1));
        pos = next;
    }
    const auto cur = cells.size() == 2 ? summary_size(cells[0]) : std::nullopt;
    const auto peak = cells.size() == 2 ? summary_size(cells[1]) : std::nullopt;
    if (!cur || !peak) bad_line(line, "the memory_summary row has no current and peak size (\"12345 MiB\")");
    return {*cur, *peak};
}

// "|            CUDA OOMs: 1            |        cudaMalloc retries: 1         |": the count after `key`.
int64_t summary_count(const std::string& text, const char* key, size_t line) {
    const auto n = number_after(text, key);
    if (!n || *n != std::floor(*n)) bad_line(line, std::string("the memory_summary has no whole number after \"") + key + "\"");
    return static_cast<int64_t>(*n);
}

// nvidia-smi's table: the first row of a GPU, "|   0  A100-SXM-80GB       On   | 00000000:10:00.0 Off | ...": its index.
// (A memory row starts "| N/A" or with a fan speed, "| 30%", which this refuses.)
std::optional<int64_t> smi_gpu_row(const std::string& text) {
    const size_t bar = text.find('|');
    if (bar == std::string::npos) return std::nullopt;
    const size_t a = text.find_first_not_of(' ', bar + 1);
    if (a == std::string::npos || !std::isdigit(static_cast<unsigned char>(text[a]))) return std::nullopt;
    size_t b = a;
    while (b < text.size() && std::isdigit(static_cast<unsigned char>(text[b]))) ++b;
    const size_t name = text.find_first_not_of(' ', b);
    if (b - a > 6 || name == std::string::npos || name < b + 2 || !std::isalpha(static_cast<unsigned char>(text[name])))
        return std::nullopt;
    return std::stoll(text.substr(a, b - a));
}

// nvidia-smi's memory row, "| N/A   61C    P0   175W / 400W |  33717MiB / 81252MiB |": the MiB in use.
std::optional<double> smi_used(const std::string& text, size_t mib) {
    size_t a = mib;
    while (a > 0 && std::isdigit(static_cast<unsigned char>(text[a - 1]))) --a;
    if (a == mib) return std::nullopt;
    return number_at(text.substr(a, mib - a));
}

}  // namespace

MeasuredRun read_run_log(const std::string& text) {
    MeasuredRun run;
    std::map<int64_t, MeasuredMemory> last;  // each rank's latest report
    bool deepspeed = false, megatron = false, summary = false, timer = false, trainer = false, nemo = false;
    std::map<int64_t, MeasuredMemory> summaries;  // torch.cuda.memory_summary's, by device
    int64_t device = -1;                          // the device of the memory_summary being read
    std::map<int64_t, double> smi;                // nvidia-smi's memory in use, by GPU index
    bool in_smi = false;                          // inside nvidia-smi's GPU table
    int64_t smi_gpu = -1;                         // the GPU whose memory row comes next
    std::map<int64_t, std::pair<OutOfMemory, int64_t>> ooms;  // each rank's last out-of-memory error, and how many
    std::map<int64_t, std::vector<double>> titan_tps;         // torchtitan's tokens per second per device, by rank
    std::map<int64_t, double> titan_reserved;                 // and its largest reserved peak, by rank
    log_text::Lines lines(text);
    std::string l;
    while (lines.next(l)) {
        const size_t line = lines.number();
        if (const auto oom = read_oom_message(l, line)) {
            auto& [last_oom, count] = ooms[oom->rank];
            last_oom = oom->oom;
            ++count;
        } else if (l.find("NVIDIA-SMI ") != std::string::npos && l.find("Driver Version") != std::string::npos) {
            in_smi = true;  // nvidia-smi's table: GPUs until its process list
            smi_gpu = -1;
        } else if (in_smi && (l.find("Processes:") != std::string::npos || trim(l).empty())) {
            in_smi = false;
        } else if (const auto gpu = in_smi ? smi_gpu_row(l) : std::nullopt) {
            smi_gpu = *gpu;
        } else if (const size_t mib = l.find("MiB /"); in_smi && smi_gpu >= 0 && mib != std::string::npos) {
            const auto used = smi_used(l, mib);
            if (!used) bad_line(line, "nvidia-smi's memory row has no number of MiB in use");
            smi[smi_gpu] = *used * kMiB;
            smi_gpu = -1;
        } else if (l.find("PyTorch CUDA memory summary, device ID") != std::string::npos) {
            // torch.cuda.memory_summary (torch/cuda/memory.py): its device ID read as the rank (one process per device).
            const auto id = number_after(l, "device ID");
            if (!id || *id != std::floor(*id)) bad_line(line, "the memory_summary's device ID is not a whole number");
            device = static_cast<int64_t>(*id);
            summaries[device].rank = device;
            summary = true;
        } else if (device >= 0 && l.find("CUDA OOMs:") != std::string::npos) {
            summaries[device].ooms = summary_count(l, "CUDA OOMs:", line);
            summaries[device].alloc_retries = summary_count(l, "cudaMalloc retries:", line);
        } else if (const size_t row = l.find("| Allocated memory"); device >= 0 && row != std::string::npos) {
            std::tie(summaries[device].allocated, summaries[device].max_allocated) = summary_row(l, row + 1, line);
        } else if (const size_t row = l.find("| GPU reserved memory"); device >= 0 && row != std::string::npos) {
            std::tie(summaries[device].reserved, summaries[device].max_reserved) = summary_row(l, row + 1, line);
        } else if (l.find("memory (MB)") != std::string::npos && l.find("max allocated") != std::string::npos) {
            const MeasuredMemory m = memory_line(l, line);
            last[m.rank] = m;
            megatron = true;
        } else if (l.find("see_memory_usage") != std::string::npos && l.find("Max_MA") != std::string::npos) {
            // Each report's peaks are since the one before: the run's peak is the largest of them.
            MeasuredMemory m = deepspeed_line(l, line);
            if (const auto it = last.find(0); it != last.end()) {
                m.max_allocated = std::max(m.max_allocated, it->second.max_allocated);
                m.max_reserved = std::max(m.max_reserved, it->second.max_reserved);
            }
            last[0] = m;
            deepspeed = true;
        } else if (const size_t at = l.find("Theoretical memory footprints:"); at != std::string::npos) {
            // "Theoretical memory footprints: weight and optimizer=46983.28 MB, activation=8989.01 MB, total=55972.29 MB"
            FrameworkEstimate e;
            const std::pair<const char*, double*> keys[] = {{"weight and optimizer=", &e.weights_and_optimizer},
                                                             {"activation=", &e.activations}, {"total=", &e.total}};
            for (const auto& [key, out] : keys) {
                const auto mb = number_after(l, key, at);
                if (!mb) bad_line(line, std::string("the theoretical memory line has no number after \"") + key + "\"");
                *out = *mb * kMiB;
            }
            run.has_framework_estimate = true;
            run.framework_estimate = e;
        } else if (l.find("CurrSamplesPerSec=") != std::string::npos) {
            // DeepSpeed's ThroughputTimer (deepspeed/utils/timer.py stop): the job's samples per second over the
            // last step (its batch_size is train_batch_size, or the micro-batch times the data-parallel ranks in
            // releases before 0.10 that timed each micro-step: the whole job's throughput either way).
            const auto sps = number_after(l, "CurrSamplesPerSec=");
            if (!sps || *sps <= 0) bad_line(line, "CurrSamplesPerSec is not a positive number");
            run.samples_per_second.push_back(*sps);
            timer = true;
        } else if (const size_t tps = l.find("tps: "); tps != std::string::npos && l.find("step:") != std::string::npos &&
                                                               l.find("memory:") != std::string::npos) {
            // torchtitan's metrics line (torchtitan/components/metrics.py MetricsProcessor.log): its reserved peak since
            // the last report in GiB (device_memory_monitor, torch.cuda.memory_stats' reserved_bytes.all.peak over
            // 2^30) and its tokens per second per device, with thousands separated by commas; torchrun's "[rankN]:".
            const auto gib = number_after(l, "memory:");
            const auto per_device = number_after(l, "tps: ", 0, true);
            if (!gib || l.find("GiB", l.find("memory:")) == std::string::npos)
                bad_line(line, "torchtitan's memory is not a number of GiB");
            if (!per_device || *per_device <= 0) bad_line(line, "torchtitan's tps is not a positive number");
            int64_t rank = 0;
            if (const size_t at = l.find("[rank"); at != std::string::npos && at < tps)
                if (const auto r = number_at(l.substr(at + 5)); r && *r == std::floor(*r)) rank = static_cast<int64_t>(*r);
            titan_tps[rank].push_back(*per_device);
            titan_reserved[rank] = std::max(titan_reserved[rank], *gib * kGiB);
        } else if (l.find("'train_samples_per_second':") != std::string::npos) {
            // Hugging Face's Trainer at the end of train() (transformers trainer_utils.py speed_metrics: the training's
            // samples over its runtime, to three decimals; evaluation and checkpoints included): a step is the plan's
            // global batch over it, as for DeepSpeed's timer.
            const auto sps = number_after(l, "'train_samples_per_second':");
            if (!sps || *sps <= 0) bad_line(line, "train_samples_per_second is not a positive number");
            run.samples_per_second.push_back(*sps);
            trainer = true;
        } else if (l.find("train_step_timing in s:") != std::string::npos) {
            // NeMo 2's progress printer (nemo/lightning/pytorch/callbacks/progress_printer.py: each metric "key: value"
            // between " | "), its step timer's "train_step_timing in s" (nemo/utils/exp_manager.py TimingCallback).
            const auto s = number_after(l, "train_step_timing in s:");
            if (!s || *s <= 0) bad_line(line, "train_step_timing is not a positive number of seconds");
            run.step_seconds.push_back(*s);
            nemo = true;
        } else if (l.find("elapsed time per iteration (ms):") != std::string::npos) {
            const auto ms = number_after(l, "elapsed time per iteration (ms):");
            if (!ms || *ms <= 0) bad_line(line, "the elapsed time per iteration is not a positive number of ms");
            run.step_seconds.push_back(*ms / 1e3);
        }
    }
    // A memory_summary completes its rank's report (Megatron's lines have no out-of-memory count) or stands for it.
    for (const auto& [rank, s] : summaries) {
        if (s.max_allocated <= 0 && s.max_reserved <= 0 && s.ooms < 0)
            throw InputError("/log", "the memory_summary of device " + std::to_string(rank) +
                                         " has no \"Allocated memory\" or \"GPU reserved memory\" row and no counters");
        if (const auto it = last.find(rank); it != last.end()) {
            it->second.ooms = s.ooms;
            it->second.alloc_retries = s.alloc_retries;
            if (s.max_allocated > 0) {
                it->second.max_allocated = std::max(it->second.max_allocated, s.max_allocated);
                it->second.max_reserved = std::max(it->second.max_reserved, s.max_reserved);
            }
        } else {
            last[rank] = s;
        }
    }
    // nvidia-smi's figure, the GPU index read as the rank (one process per device): beside the allocator's, or alone.
    for (const auto& [gpu, used] : smi) {
        if (const auto it = last.find(gpu); it != last.end()) {
            it->second.device_used = used;
        } else {
            MeasuredMemory m;
            m.rank = gpu;
            m.allocator = false;
            m.device_used = used;
            last[gpu] = m;
        }
    }
    // torchtitan: each rank's reserved peak; its tokens per second after each rank's first report (start-up and
    // compilation), or every report where each rank reported once.
    for (const auto& [rank, reserved] : titan_reserved) {
        MeasuredMemory& m = last[rank];
        m.rank = rank;
        m.allocated_known = false;
        m.max_reserved = std::max(m.max_reserved, reserved);
        m.reserved = m.max_reserved;
    }
    for (const auto& [rank, series] : titan_tps)
        if (series.size() > 1) {
            run.tokens_per_device_second.insert(run.tokens_per_device_second.end(), series.begin() + 1, series.end());
            run.tps_first_dropped = true;
        }
    if (run.tokens_per_device_second.empty())
        for (const auto& [rank, series] : titan_tps)
            run.tokens_per_device_second.insert(run.tokens_per_device_second.end(), series.begin(), series.end());
    // An out-of-memory error completes its rank's report (the failure beside the peaks before it) or stands for it.
    for (const auto& [rank, failed] : ooms) {
        const bool reported = last.count(rank) > 0;
        MeasuredMemory& m = last[rank];
        m.rank = rank;
        if (!reported) m.allocator = false;  // known by its error alone: no peaks
        m.has_oom = true;
        m.oom = failed.first;
        m.ooms = std::max(m.ooms, failed.second);
    }
    for (const auto& [rank, m] : last) run.memory.push_back(m);
    if (run.memory.empty() && run.step_seconds.empty() && run.samples_per_second.empty() &&
        run.tokens_per_device_second.empty() && !run.has_framework_estimate)
        throw InputError("/log", "no line this reader knows: it reads Megatron-LM's memory lines (\"memory (MB) | "
                                 "allocated: … | max allocated: … | reserved: … | max reserved: …\"), iteration "
                                 "lines (\"elapsed time per iteration (ms): …\") and theoretical memory line, "
                                 "DeepSpeed's see_memory_usage lines (\"MA … GB Max_MA … GB CA … GB Max_CA … GB\"), "
                                 "torch.cuda.memory_summary() tables, PyTorch's out-of-memory errors (\"CUDA out of "
                                 "memory. Tried to allocate …\"), nvidia-smi's GPU table, DeepSpeed's throughput "
                                 "timer (\"CurrSamplesPerSec=…\"), Hugging Face's Trainer's final metrics "
                                 "('train_samples_per_second': …), torchtitan's metrics lines (\"memory: …GiB(…%)  "
                                 "tps: …\") and NeMo's progress lines (\"train_step_timing in s: …\")");
    if (megatron && deepspeed)
        throw InputError("/log", "the log mixes Megatron-LM's memory lines with DeepSpeed's see_memory_usage lines: "
                                 "give one run's log");
    run.source = deepspeed ? "DeepSpeed" : megatron ? "Megatron-LM" : summary ? "PyTorch (memory_summary)" : nemo ? "NeMo"
                 : !ooms.empty() && run.step_seconds.empty() ? "PyTorch (out-of-memory error)"
                 : timer && run.step_seconds.empty() ? "DeepSpeed"
                 : trainer && run.step_seconds.empty() ? "Hugging Face Trainer"
                 : !titan_tps.empty() && run.step_seconds.empty() ? "torchtitan"
                 : !smi.empty() && run.step_seconds.empty() && !run.has_framework_estimate ? "nvidia-smi" : "Megatron-LM";
    return run;
}

}  // namespace shardcalc
