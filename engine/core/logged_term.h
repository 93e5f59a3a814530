#pragma once
// A figure a run's log reports beside the estimate's figure for the same thing: a term of the serving and RL
// reconciliations (serve/serving_reconcile.h, rl/rl_reconcile.h), shown as a row of log, estimate and gap.
#include <string>

namespace shardcalc {

enum class LoggedUnit { Bytes, Count, Seconds };

inline const char* unit_name(LoggedUnit u) {
    switch (u) {
        case LoggedUnit::Bytes: return "bytes";
        case LoggedUnit::Count: return "count";
        case LoggedUnit::Seconds: return "seconds";
    }
    return "count";
}

struct LoggedTerm {
    std::string key, label;                 // the JSON key and its words
    double log = 0, estimate = 0, gap = 0;  // gap: estimate - log (negative: the estimate is short)
    LoggedUnit unit = LoggedUnit::Bytes;
};

}  // namespace shardcalc
