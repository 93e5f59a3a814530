// A command's answer for people (io/api.h text_answer): the engine's result (io/answers.h) written by io/render/.
#include "core/error.h"
#include "io/answers.h"
#include "io/api.h"
#include "io/codec/json_writer.h"
#include "io/guarded_text.h"
#include "io/render/answer_text.h"

namespace shardcalc {

namespace {

// The answer's envelope around its text (and the verdict, where the answer is an estimate's).
std::string text_envelope(const std::string& format, const std::string& text, const char* verdict = nullptr) {
    JsonWriter w;
    w.begin_object().field("ok", true).field("format", format);
    if (verdict) w.field("verdict", verdict);
    w.field("text", text).end_object();
    return w.take();
}

TextFormat text_format(const std::string& command, const std::string& format) {
    if (format == "table") return TextFormat::Table;
    if (format == "markdown") return TextFormat::Markdown;
    if (format == "csv") return TextFormat::Csv;
    throw InputError("/format", command + " writes table|markdown|csv (and json, its answer itself)");
}

}  // namespace

std::string text_answer(const std::string& scenario_json, const TextRequest& q) {
    return guarded_text([&] {
        const TextFormat f = text_format(q.command, q.format);
        if (q.unit != "GiB" && q.unit != "GB") throw InputError("/unit", "allowed: GiB|GB");
        // The answers written only as a table: the reconciliations and the RL estimate.
        const auto table_only = [&] {
            if (f != TextFormat::Table) throw InputError("/format", q.command + " writes table (and json, its answer itself)");
        };
        const bool log = q.log.has_value();
        const std::string& log_text = log ? *q.log : std::string();
        if (q.command == "reconcile") {
            table_only();
            if (!log) throw InputError("/log", "reconcile sets a run's log against the estimate: give the log");
            const RunReconciliation r = run_reconciliation(scenario_json, log_text);
            return text_envelope(q.format, format_reconciliation(r.reconciliation, r.source));
        }
        if (q.command == "rl") {
            table_only();
            if (log) return text_envelope(q.format, format_rl_reconciliation(rl_reconciliation(scenario_json, log_text)));
            const RlAnswer a = rl_answer(scenario_json);
            return text_envelope(q.format, format_rl(a.rl, a.estimate, a.limits));
        }
        if (q.command == "serve") {
            table_only();
            if (log) return text_envelope(q.format, format_serving_reconciliation(serving_reconciliation(scenario_json, log_text)));
            return text_envelope(q.format, format_serving(serving_answer(scenario_json)));
        }
        if (q.command == "search") return text_envelope(q.format, format_search(search_of(scenario_json, q.workers), f));
        if (q.command == "kernels") return text_envelope(q.format, format_kernels(kernel_table(scenario_of(scenario_json), q.stage), f));
        if (q.command != "estimate") throw InputError("/command", "allowed: estimate|kernels|reconcile|rl|search|serve");
        const Report r = evaluate(scenario_of(scenario_json));
        const std::string text = f == TextFormat::Table ? format_table(r)
                                 : f == TextFormat::Csv ? format_csv(r)
                                                        : format_markdown(r, q.unit == "GB" ? ByteUnit::GB : ByteUnit::GiB);
        return text_envelope(q.format, text, verdict_name(r.verdict.verdict));
    });
}

}  // namespace shardcalc
