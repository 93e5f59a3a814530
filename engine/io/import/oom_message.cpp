#include "io/import/oom_message.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "core/units.h"
#include "io/import/log_text.h"

namespace shardcalc {

namespace {

using log_text::bad_line;
using log_text::number_at;

bool digit(char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; }

// A size as the allocator's format_size prints it, at the start of `s` (after blanks): "0 bytes", "576.00 KiB",
// "31.75 GiB", in bytes.
std::optional<double> size_at(const std::string& s) {
    const auto v = number_at(s);
    if (!v) return std::nullopt;
    size_t i = s.find_first_not_of(' ');
    while (i < s.size() && (digit(s[i]) || s[i] == '.')) ++i;
    while (i < s.size() && s[i] == ' ') ++i;
    const std::pair<const char*, double> units[] = {{"bytes", 1}, {"KiB", 1024}, {"MiB", kMiB}, {"GiB", kGiB}};
    for (const auto& [name, scale] : units)
        if (s.compare(i, std::strlen(name), name) == 0) return *v * scale;
    return std::nullopt;
}

// The size right after `key` (searched from `from`).
std::optional<double> size_after(const std::string& s, const char* key, size_t from = 0) {
    const size_t k = s.find(key, from);
    return k == std::string::npos ? std::nullopt : size_at(s.substr(k + std::strlen(key)));
}

// The size that ends right before `key` ("... 30.39 GiB reserved in total"): its number and unit read backwards.
std::optional<double> size_before(const std::string& s, const char* key) {
    size_t i = s.find(key);
    if (i == std::string::npos) return std::nullopt;
    while (i > 0 && s[i - 1] == ' ') --i;
    while (i > 0 && std::isalpha(static_cast<unsigned char>(s[i - 1]))) --i;  // the unit
    while (i > 0 && s[i - 1] == ' ') --i;
    while (i > 0 && (digit(s[i - 1]) || s[i - 1] == '.')) --i;  // the number
    return size_at(s.substr(i));
}

// A whole number right after `key`.
std::optional<int64_t> index_after(const std::string& s, const char* key) {
    const size_t k = s.find(key);
    if (k == std::string::npos) return std::nullopt;
    size_t a = k + std::strlen(key), b = a;
    while (b < s.size() && digit(s[b]) && b - a < 9) ++b;
    if (b == a) return std::nullopt;
    return std::stoll(s.substr(a, b - a));
}

// PyTorch 2.1 and later: the process sentences ("Process 123 has 3.97 GiB memory in use." for each process NVML lists
// on the device, "Including non-PyTorch memory, this process has ..." for this one), then the allocator's.
void read_current(const std::string& m, OutOfMemory& o, size_t line) {
    const auto capacity = size_after(m, "has a total capacity of ");
    const auto free = size_after(m, " of which ");
    const auto allocated = size_after(m, "Of the allocated memory ");
    const size_t unallocated = m.find(" is reserved by PyTorch but unallocated");
    const size_t and_at = unallocated == std::string::npos ? std::string::npos : m.rfind("and ", unallocated);
    const auto cached = and_at == std::string::npos ? std::nullopt : size_at(m.substr(and_at + 4));
    if (!capacity || !free) bad_line(line, "the out-of-memory error has no \"total capacity of … of which … is free\"");
    if (!allocated || !cached)
        bad_line(line, "the out-of-memory error has no \"Of the allocated memory … is allocated by PyTorch, and … is "
                       "reserved by PyTorch but unallocated\"");
    o.capacity = *capacity;
    o.free = *free;
    o.allocated = *allocated;
    o.cached = *cached;
    if (const auto self = size_after(m, "this process has ")) o.process_used = *self;
    for (size_t at = m.find("Process "); at != std::string::npos; at = m.find("Process ", at + 8)) {
        const std::string rest = m.substr(at + 8);
        size_t d = 0;
        while (d < rest.size() && digit(rest[d])) ++d;
        if (d == 0 || rest.compare(d, 5, " has ") != 0) continue;
        if (const auto held = size_at(rest.substr(d + 5))) {
            o.other_processes += *held;
            ++o.named_processes;
        }
    }
}

// PyTorch 1.x and 2.0: "(GPU 3; 31.75 GiB total capacity; 28.42 GiB already allocated; 340.94 MiB free; 30.39 GiB
// reserved in total by PyTorch)", or "... 30.96 MiB cached)" before the reserved were named.
void read_older(const std::string& m, OutOfMemory& o, size_t line) {
    const auto capacity = size_before(m, " total capacity;");
    const auto allocated = size_before(m, " already allocated;");
    const auto free = size_before(m, " free;");
    if (!capacity || !allocated || !free)
        bad_line(line, "the out-of-memory error has no \"… total capacity; … already allocated; … free\"");
    o.capacity = *capacity;
    o.allocated = *allocated;
    o.free = *free;
    if (const auto reserved = size_before(m, " reserved in total by PyTorch")) {
        o.cached = std::max(0.0, *reserved - *allocated);
    } else if (const auto cached = size_before(m, " cached)")) {
        o.cached = *cached;
    } else {
        bad_line(line, "the out-of-memory error has no \"… reserved in total by PyTorch\" or \"… cached\"");
    }
}

}  // namespace

std::optional<OomMessage> read_oom_message(const std::string& text, size_t line) {
    const size_t at = text.find("ut of memory. Tried to allocate ");  // "CUDA out of memory." or "Out of memory."
    if (at == std::string::npos) return std::nullopt;
    const std::string m = text.substr(at);
    OomMessage out;
    const auto request = size_after(m, "Tried to allocate ");
    if (!request) bad_line(line, "the out-of-memory error has no size after \"Tried to allocate\"");
    out.oom.request = *request;
    const bool current = m.find("has a total capacity of ") != std::string::npos;
    if (current) {
        read_current(m, out.oom, line);
    } else {
        read_older(m, out.oom, line);
    }
    if (const auto allowed = size_before(m, " allowed;")) out.oom.allowed = *allowed;
    // torchrun's "[rank3]:" before the line, else the GPU the message names.
    const auto prefixed = index_after(text.substr(0, at), "[rank");
    const auto gpu = current ? index_after(m, "GPU ") : index_after(m, "(GPU ");
    if (!prefixed && !gpu) bad_line(line, "the out-of-memory error names no GPU");
    out.rank = prefixed ? *prefixed : *gpu;
    return out;
}

}  // namespace shardcalc
