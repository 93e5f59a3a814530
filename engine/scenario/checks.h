#pragma once
// What the constraint checks between fields share (scenario/validate.cpp, scenario/validate_framework.cpp): a list of
// problems that every check adds to, so a user sees all of a plan's problems at once, each naming the field to change.
#include <initializer_list>
#include <string>
#include <vector>

#include "core/error.h"
#include "scenario/divisors.h"
#include "scenario/resolve.h"

namespace shardcalc::validation {

inline std::string str(int64_t v) { return std::to_string(v); }

inline int64_t gcd(int64_t a, int64_t b) { return b == 0 ? a : gcd(b, a % b); }

// One size a degree must divide: its name in the scenario and, where it helps, why.
struct Size {
    const char* what;
    int64_t value;
    const char* why = nullptr;
};

// Every check runs, so that a user sees all problems of a plan at once; each names the field to change.
class Checks {
public:
    // A fixed message becomes a string only when the check fails (a plan search validates hundreds of thousands of
    // plans); a message with values in it is built in the caller's `if (...) check.fail(...)`, only on failure.
    void require(bool ok, const char* path, const char* message) {
        if (!ok) problems_.add(path, message);
    }
    // A check that failed, where its message is worth building only then (it lists the values that would work: a plan
    // search validates hundreds of thousands of plans).
    void fail(const char* path, const std::string& message) { problems_.add(path, message); }
    // `degree` must divide each size; one message lists them all and the values that divide every one.
    void divides(int64_t degree, std::initializer_list<Size> sizes, const char* path, const char* degree_name) {
        std::vector<std::string> failed;
        int64_t common = 0;
        for (const Size& s : sizes) common = gcd(common, s.value);
        for (const Size& s : sizes)
            if (s.value % degree != 0)
                failed.push_back(std::string(s.what) + " (" + str(s.value) + (s.why ? std::string(": ") + s.why : "") + ")");
        if (failed.empty()) return;
        std::string list;  // "a", "a and b", "a, b and c"
        for (size_t i = 0; i < failed.size(); ++i)
            list += (i == 0 ? "" : i + 1 == failed.size() ? " and " : ", ") + failed[i];
        problems_.add(path, "must divide " + list + ", got " + str(degree) + "; " + degree_name + " that work: " +
                                divisors_text(common));
    }
    bool has(const char* path) const { return problems_.has(path); }
    const std::vector<Problem>& problems() const { return problems_.list(); }

private:
    Problems problems_;
};

// The framework's own rules (scenario/validate_framework.cpp).
void validate_framework(const Config& c, Checks& check);

}  // namespace shardcalc::validation
