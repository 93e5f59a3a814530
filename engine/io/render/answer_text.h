#pragma once
// The engine's answers for people, each written from the engine's own result, not from its JSON (which is
// io/contract/'s): what `shardcalc` prints and the page's Markdown export.
#include <string>

#include <vector>

#include "core/units.h"
#include "io/answers.h"
#include "report/kernel_table.h"
#include "report/reconcile.h"
#include "report/report.h"
#include "rl/rl.h"
#include "rl/rl_reconcile.h"
#include "search/launch.h"
#include "serve/serving_reconcile.h"

namespace shardcalc {

enum class TextFormat { Table, Markdown, Csv };

// The report: the table for terminals and CSV for spreadsheets (io/render/report_text.cpp), and the Markdown, a summary
// (the plan, the memory verdict, the step time) then the tables, amounts in `unit` (io/render/report_markdown.cpp).
std::string format_table(const Report& report);
std::string format_csv(const Report& report);
std::string format_markdown(const Report& report, ByteUnit unit = ByteUnit::GiB);

// The per-kernel table of one pipeline stage (io/render/kernels_text.cpp).
std::string format_kernels(const KernelTable& table, TextFormat format);

// The plan search's ranking, its counts and rejections, and the first plan's launch (io/render/search_text.cpp).
std::string format_search(const SearchResult& result, TextFormat format);

// The RL estimate: memory by phase, the step's time, the largest settings that fit, the launch (io/render/rl_text.cpp).
std::string format_rl(const RlSpec& rl, const RlEstimate& estimate, const RlLimits& limits);

// Serving one plan (memory of a GPU, one replica's latency and throughput, the curve, the launch) or the serving plan
// search's ranking (io/render/serving_text.cpp).
std::string format_serving(const ServingAnswer& answer);

// A log set against the estimate (io/render/reconcile_text.cpp): a training run's (its `source`, "Megatron-LM", ...),
// vLLM's start-up log against the serving estimate, verl's steps against the RL estimate.
std::string format_reconciliation(const Reconciliation& r, const std::string& source);
std::string format_serving_reconciliation(const ServingReconciliation& r);
std::string format_rl_reconciliation(const RlReconciliation& r);

// Launch commands, each tool's name then its lines indented, each command between two `fence` lines (e.g. "```\n"
// for Markdown) (io/render/search_text.cpp).
std::string launch_text(const std::vector<LaunchCommand>& launch, const std::string& fence = "");

}  // namespace shardcalc
