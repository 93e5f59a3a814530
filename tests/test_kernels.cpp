// The per-kernel table (report/kernel_table.h): its rows add up to the stage's compute time, and it reproduces
// DeepFlow's projection of an LSTM language model (docs/sources.md) kernel by kernel.

#include "helpers.h"
#include "io/contract/scenario_json.h"
#include "report/kernel_table.h"

using namespace shardcalc;

namespace {

std::string example(const char* name) { return test::repo_file(std::string("examples/") + name); }

const KernelRow& row(const KernelTable& t, const std::string& module, const std::string& kernel, KernelPass pass) {
    for (const auto& r : t.rows)
        if (r.module == module && r.name == kernel && r.pass == pass) return r;
    FAIL("no row " << module << " " << kernel << " " << pass_name(pass));
    return t.rows.front();
}

}  // namespace

TEST_CASE("kernel table: its rows add up to each stage's forward, backward, recompute and optimizer time") {
    const char* gpt_eager = R"({"framework":"pytorch","model":{"preset":"gpt2"},"training":{"seq_len":1024,"micro_batch":4,
        "attention":"eager","recompute":"selective","dropout":0.1,"global_batch":16},"hardware":{"preset":"h100-sxm-80gb"}})";
    const char* moe = R"({"framework":"megatron","model":{"preset":"mixtral-8x7b"},"training":{"seq_len":4096,"micro_batch":1,
        "global_batch":64,"recompute":"full"},"parallel":{"tp":2,"pp":2,"ep":4,"dp":8,"sp":true},"hardware":{"preset":"h100-sxm-80gb"}})";
    for (const std::string& text : {example("llama-3.1-70b-h100.json"), std::string(gpt_eager), std::string(moe),
                                    example("deepflow-lstm-38b.json")}) {
        CAPTURE(text);
        Config c = test::config(text);
        const ModelGraph g = build_graph(c);
        const Estimate e = estimate(c, g, Detail::Numbers);
        for (size_t i = 0; i < e.plan.stages.size(); ++i) {
            const KernelTable t = kernel_table(e, g, static_cast<int64_t>(i));
            const StageCompute& sc = e.perf.compute[i];
            const double mb = static_cast<double>(e.config.d.microbatches);
            auto pass = [&](KernelPass p) { return t.pass_seconds[static_cast<int>(p)]; };
            CHECK(pass(KernelPass::Forward) == doctest::Approx(mb * sc.cost.fwd.seconds).epsilon(1e-9));
            CHECK(pass(KernelPass::BackwardData) + pass(KernelPass::BackwardWeight) ==
                  doctest::Approx(mb * sc.cost.bwd.seconds).epsilon(1e-9));
            CHECK(pass(KernelPass::Recompute) == doctest::Approx(mb * sc.cost.recompute.seconds).epsilon(1e-9));
            CHECK(pass(KernelPass::Optimizer) == doctest::Approx(stage_optimizer(e.config, e.stages[i]).seconds()).epsilon(1e-9));
            for (const auto& r : t.rows) {
                CHECK(r.kernel.seconds > 0);
                CHECK(r.count >= 1);
            }
        }
        // Without a stage, the table is the one whose kernels take longest.
        double longest = 0;
        for (size_t i = 0; i < e.plan.stages.size(); ++i) longest = std::max(longest, kernel_table(e, g, static_cast<int64_t>(i)).seconds);
        CHECK(kernel_table(e, g).seconds == longest);
    }
}

TEST_CASE("kernel table: recompute repeats exactly the forward kernels of the recomputed ops") {
    const char* full = R"({"framework":"megatron","model":{"preset":"gpt3-1.3b"},"training":{"seq_len":2048,"micro_batch":2,
        "recompute":"full"},"hardware":{"preset":"a100-sxm-80gb"}})";
    const KernelTable t = kernel_table(test::scenario(full));
    double forward_in_layers = 0;
    for (const auto& r : t.rows)
        if (r.pass == KernelPass::Forward && r.module.rfind("layer/", 0) == 0) forward_in_layers += r.step_seconds();
    CHECK(t.pass_seconds[static_cast<int>(KernelPass::Recompute)] == doctest::Approx(forward_in_layers));
}

TEST_CASE("kernel table: a stage that does not exist names /stage with the ranks allowed") {
    const auto r = nlohmann::json::parse(kernels_scenario_text(example("llama-3.1-70b-h100.json"), 4));
    CHECK(r["ok"] == false);
    CHECK(r["error"]["path"] == "/stage");
    CHECK(r["error"]["message"].get<std::string>().find("allowed 0 to 3") != std::string::npos);
}

// DeepFlow's LSTM projection (docs/sources.md: nanocad-lab/DeepFlow's summary.txt, perf.py at e6a5da0; the
// configuration in presets/models/deepflow-lstm-38b.json, presets/hardware/deepflow-300w.json and
// examples/deepflow-lstm-38b.json). Targets: FLOPs and bytes within
// 10% per kernel, time within 15%; where our mechanism differs from DeepFlow's the test holds the difference that
// docs/time.md explains.
TEST_CASE("DeepFlow's LSTM projection: the 38B LSTM language model, kernel by kernel") {
    const KernelTable t = kernel_table(test::scenario(example("deepflow-lstm-38b.json")));
    struct Gemm {
        const char* deepflow;  // the kernel's name in DeepFlow's summary
        const char* module;
        KernelPass pass;
        double m, k, n, flops, hbm, l2, seconds;
        double hbm_reload_a, hbm_reload_b, l2_reload_a, l2_reload_b;
    };
    // DeepFlow's lines "<name> GEMM_flop, GEMM_gmem, GEMM_l2mem, GEMM_time" and their reload triples (A, C, B).
    const Gemm gemms[] = {
        {"Cf", "lstm/gates", KernelPass::Forward, 512, 39936, 79872, 3271025491968, 25681723392, 16112418816, 0.715153169797531, 156, 1, 39, 1},
        {"Cb_act", "lstm/gates", KernelPass::BackwardData, 512, 79872, 39936, 3270616547328, 25599934464, 16112418816, 0.7150637657481483, 78, 1, 20, 1},
        {"Cb_wt", "lstm/gates", KernelPass::BackwardWeight, 39936, 512, 79872, 3330117992448, 25599934464, 16112418816, 0.7280720549333335, 1, 78, 0, 0},
        {"softmax_f", "head/output_layer", KernelPass::Forward, 10240, 19968, 800000, 327688192000000, 2589080944640, 672050708480, 71.63968802880662, 1563, 20, 391, 5},
        {"softmax_b_act", "head/output_layer", KernelPass::BackwardData, 10240, 800000, 19968, 327558522470400, 2556721889280, 647985889280, 71.61133949481484, 39, 20, 10, 5},
        {"softmax_b_wt", "head/output_layer", KernelPass::BackwardWeight, 19968, 10240, 800000, 327794688000000, 2620210544640, 711372308480, 71.66297033333336, 1563, 39, 391, 10},
    };
    for (const Gemm& s : gemms) {
        CAPTURE(s.deepflow);
        const KernelRow& r = row(t, s.module, "gemm", s.pass);
        CHECK(r.gemm.m == s.m);
        CHECK(r.gemm.k == s.k);
        CHECK(r.gemm.n == s.n);
        CHECK(test::rel(r.kernel.flops, s.flops) < 0.02);  // DeepFlow adds m n (15 + 5 ceil(k / 2048)) to 2 m k n
        CHECK(test::rel(r.kernel.bytes, s.hbm) < 1e-9);
        CHECK(test::rel(r.kernel.l2_bytes, s.l2) < 0.001);
        CHECK(test::rel(r.kernel.seconds, s.seconds) < 0.02);  // the same FLOPs at the same rate, plus one launch
        CHECK(r.traffic.hbm_reload_a == s.hbm_reload_a);
        CHECK(r.traffic.hbm_reload_b == s.hbm_reload_b);
        if (s.l2_reload_a > 0) {
            CHECK(r.traffic.l2_reload_a == s.l2_reload_a);
            CHECK(r.traffic.l2_reload_b == s.l2_reload_b);
        }
        CHECK(r.kernel.compute_bound);
    }
    // The cell's pointwise kernels forward (DeepFlow's "Hidden point_flop, point_mem, point_time"): the same 8.5
    // accesses and 3.25 FLOPs per gate element; DeepFlow launches 15 kernels where we count 10 (-10% time).
    const KernelRow& cell = row(t, "lstm/cell", "elementwise", KernelPass::Forward);
    CHECK(cell.count == 40);  // 2 layers x 20 time steps
    CHECK(test::rel(cell.kernel.flops, 132907008) < 1e-9);
    CHECK(test::rel(cell.kernel.bytes, 1390411776) < 1e-9);
    CHECK(test::rel(cell.kernel.seconds, 0.0017811626772486775) < 0.15);
    // Backward ("(gr) Hidden point"): DeepFlow adds the step's weight-gradient accumulation to the cell's backward,
    // 3 accesses per weight without their 4-byte width; ours is its own kernel at 3 x 4 bytes. FLOPs of the two
    // together: 5.5 per gate element + 1 per weight against DeepFlow's 3.25 per cell unit + 1 per weight.
    const KernelRow& cell_bwd = row(t, "lstm/cell", "elementwise", KernelPass::BackwardData);
    const KernelRow& accumulate = row(t, "lstm/gates", "gradient accumulation", KernelPass::BackwardWeight);
    CHECK(test::rel(cell_bwd.kernel.flops + accumulate.kernel.flops, 3222994944) < 0.10);
    const double weights = 2.0 * 19968 * 4 * 19968;
    CHECK(accumulate.kernel.bytes == doctest::Approx(3 * 4 * weights));
    CHECK(test::rel(cell_bwd.kernel.bytes + accumulate.kernel.bytes / 4, 9916907520) < 0.20);  // their byte count
    // Embedding (DeepFlow's "Embedding_mem", forward and backward): the gather reads and writes each row element once;
    // its backward is PyTorch's embedding_dense_backward (read the gradient, read-modify-write the fp32 table row:
    // 3 accesses where DeepFlow counts 2).
    CHECK(test::rel(row(t, "embedding/word_embeddings", "elementwise", KernelPass::Forward).kernel.bytes, 1635778560) < 1e-9);
    CHECK(row(t, "embedding/word_embeddings", "elementwise", KernelPass::BackwardData).kernel.bytes ==
          doctest::Approx(1635778560 * 1.5));
    // The softmax's pointwise work: DeepFlow counts an unfused softmax (7 accesses per logit forward, 11 backward);
    // PyTorch's log_softmax reads the logits twice and writes once (3), its backward 5 (validation/measured).
    CHECK(row(t, "head/cross_entropy", "elementwise", KernelPass::Forward).kernel.bytes == doctest::Approx(229376000000.0 * 3 / 7));
    CHECK(row(t, "head/cross_entropy", "elementwise", KernelPass::BackwardData).kernel.bytes ==
          doctest::Approx(360448000000.0 * 5 / 11));
    // Gradient clipping: 3 accesses per parameter as DeepFlow, over every parameter (DeepFlow clips one layer's
    // gates and the softmax); 3 FLOPs where DeepFlow counts 4 (the norm's reciprocal is one scalar).
    const KernelRow& clip = row(t, "optimizer", "gradient clipping", KernelPass::Optimizer);
    const double params = 38329296128;
    CHECK(clip.kernel.bytes == doctest::Approx(12 * params));
    CHECK(test::rel(clip.kernel.bytes / params, 38277218304 / (2.0 * 19968 * 4 * 19968)) < 1e-9);
    CHECK(clip.kernel.flops == doctest::Approx(3 * params));
    // The step: every kernel's time against DeepFlow's "Time: 302.88817584" (which leaves the embedding's update out).
    CHECK(test::rel(t.seconds, 302.88817584) < 0.01);
}

TEST_CASE("DeepFlow's LSTM projection: the projection's kernels, with model.projection 2048") {
    std::string text = example("deepflow-lstm-38b.json");
    text.replace(text.find("\"preset\": \"deepflow-lstm-38b\""), 29, "\"preset\": \"deepflow-lstm-38b\", \"projection\": 2048");
    const KernelTable t = kernel_table(test::scenario(text));
    // DeepFlow's "projection", "projection_b_act", "projection_b_wt": GEMM_flop, GEMM_gmem, GEMM_time.
    const KernelRow& f = row(t, "head/projection", "gemm", KernelPass::Forward);
    CHECK(test::rel(f.kernel.flops, 838881771520) < 0.005);
    CHECK(test::rel(f.kernel.bytes, 6627000320) < 1e-9);
    CHECK(test::rel(f.kernel.seconds, 0.18343450663374491) < 0.005);
    const KernelRow& a = row(t, "head/projection", "gemm", KernelPass::BackwardData);
    CHECK(test::rel(a.kernel.flops, 841608069120) < 0.005);
    CHECK(test::rel(a.kernel.seconds, 0.18403053362962968) < 0.01);
    const KernelRow& w = row(t, "head/projection", "gemm", KernelPass::BackwardWeight);
    CHECK(test::rel(w.kernel.flops, 839154401280) < 0.005);
    CHECK(test::rel(w.kernel.bytes, 6706692096) < 1e-9);
}

TEST_CASE("LSTM: parameters, memory terms and its refusals") {
    const Report r = test::report(example("deepflow-lstm-38b.json"));
    CHECK(r.parameters.total == 38329296128.0);
    const std::string text = example("deepflow-lstm-38b.json");
    auto with = [&](const std::string& extra) {
        std::string s = text;
        s.replace(s.find("\"preset\": \"deepflow-lstm-38b\""), 29, "\"preset\": \"deepflow-lstm-38b\"" + extra);
        return s;
    };
    CHECK(test::error_of(with(", \"heads\": 8"))["path"] == "/model/heads");
    CHECK(test::error_of(with(", \"position_embedding\": \"rope\""))["path"] == "/model/position_embedding");
    CHECK(test::error_of(with(", \"experts\": 8"))["path"] == "/model/experts");
    CHECK(test::error_of(with(", \"tied_embeddings\": true, \"projection\": 512"))["path"] == "/model/tied_embeddings");
    std::string tp = text;
    tp.replace(tp.find("\"hardware\""), 0, "\"parallel\": {\"tp\": 2}, ");
    CHECK(test::error_of(tp)["path"] == "/parallel/tp");
    CHECK(test::error_of(R"({"model":{"preset":"gpt2","projection":64}})")["path"] == "/model/projection");
    CHECK(test::error_of(R"({"model":{"preset":"gpt2","fused_gates":false}})")["path"] == "/model/fused_gates");
    // The echo reads back to the same numbers.
    const nlohmann::json first = evaluate_scenario(nlohmann::json::parse(text));
    REQUIRE(first["ok"] == true);
    const nlohmann::json again = evaluate_scenario(first["report"]["scenario"]);
    REQUIRE(again["ok"] == true);
    CHECK(again["report"]["time"]["step_seconds"] == first["report"]["time"]["step_seconds"]);
    CHECK(again["report"]["memory"]["per_device"] == first["report"]["memory"]["per_device"]);
    // Four gate GEMMs per step instead of one: the same FLOPs, four times the launches.
    const KernelTable fused = kernel_table(test::scenario(text)), split = kernel_table(test::scenario(with(", \"fused_gates\": false")));
    int gemms = 0;
    for (const auto& r : split.rows)
        if (r.module == "lstm/gates" && r.name == std::string("gemm") && r.pass == KernelPass::Forward) {
            ++gemms;
            CHECK(r.count == 40);
            CHECK(r.kernel.flops * 4 == doctest::Approx(row(fused, "lstm/gates", "gemm", KernelPass::Forward).kernel.flops));
        }
    CHECK(gemms == 4);
}

TEST_CASE("LSTM: an embedding narrower than the cell feeds the first layer directly; no FFN; a next-token loss") {
    // nn.Embedding(V, e) into nn.LSTM(input_size=e, hidden_size=d): the first layer's input gates are [4d, e], and
    // there is no projection from e to d (ALBERT's embedding_hidden_mapping_in is an encoder's, not an LSTM's).
    const std::string text = R"({"framework": "pytorch", "model": {"arch": "lstm", "layers": 2, "hidden": 1024,
        "embedding_dim": 256, "vocab": 10000, "projection": 0, "fused_gates": true, "bias": true,
        "tied_embeddings": false, "output_bias": true}, "training": {"seq_len": 35, "micro_batch": 20, "dtype": "fp32"}})";
    const Report r = test::report(text);
    const double V = 10000, e = 256, d = 1024;
    // Embedding, layer 1 (input e), layer 2 (input d), each with nn.LSTM's two biases of 4d (b_ih and b_hh:
    // sum(p.numel() for p in nn.LSTM(e, d, 2).parameters()) = 4d(e + d + 2) + 4d(d + d + 2)), and the softmax with its
    // bias. DeepFlow's cells, and TensorFlow's, keep one (model.gate_biases 1).
    CHECK(r.parameters.total == V * e + 4 * d * (e + d + 2) + 4 * d * (d + d + 2) + (d + 1) * V);
    std::string one = text;
    one.replace(one.find("\"bias\": true"), 12, "\"bias\": true, \"gate_biases\": 1");
    CHECK(test::report(one).parameters.total == V * e + 4 * d * (e + d + 1) + 4 * d * (d + d + 1) + (d + 1) * V);
    CHECK(test::error_of(R"({"model":{"preset":"gpt2","gate_biases":1}})")["path"] == "/model/gate_biases");
    for (const auto& row : r.modules) CHECK(row.path.find("embedding_hidden_mapping_in") == std::string::npos);
    for (const auto& note : r.notes) CHECK(note.find("ffn_hidden") == std::string::npos);
    // Its loss is next-token, as a decoder's (not BERT's masked-LM rule): at the loss backward, nll_loss's and
    // log_softmax's two fp32 [tokens, vocab] gradients.
    CHECK(test::phase(r.peak(), "loss_backward").other.transient == doctest::Approx(2 * 4 * (35.0 * 20) * V));
}

TEST_CASE("LSTM under cuDNN (torch.nn.LSTM on a GPU): the input GEMM over every step, then per step one GEMM, one cell") {
    const std::string text = R"({"framework": "pytorch", "model": {"arch": "lstm", "layers": 2, "hidden": 1024,
        "embedding_dim": 1024, "vocab": 10000, "projection": 0, "fused_gates": true, "bias": true,
        "tied_embeddings": false, "output_bias": true}, "training": {"seq_len": 35, "micro_batch": 20, "dtype": "fp32"},
        "hardware": {"preset": "h100-sxm-80gb"}})";
    std::string unrolled = text;
    unrolled.replace(unrolled.find("\"hardware\""), 0, "\"implementation\": {\"rnn\": \"unrolled\"}, ");
    const double T = 35, B = 20, d = 1024;
    const KernelTable t = kernel_table(test::scenario(text));
    // x W_ih^T for all 35 steps at once, in each of the two layers; h_{t-1} W_hh^T per step.
    const KernelRow& input = row(t, "lstm/input_gates", "gemm", KernelPass::Forward);
    CHECK(input.count == 2);
    CHECK(input.gemm.m == T * B);
    CHECK(input.gemm.n == 4 * d);
    const KernelRow& recurrent = row(t, "lstm/recurrent_gates", "gemm", KernelPass::Forward);
    CHECK(recurrent.count == 2 * T);
    CHECK(recurrent.gemm.m == B);
    CHECK(recurrent.gemm.k == d);
    CHECK(row(t, "lstm/recurrent_gates", "gemm", KernelPass::BackwardData).count == 2 * T);
    // cudnnRNNBackwardWeights: W_hh's gradient is one GEMM over every step's output gradient.
    const KernelRow& wgrad = row(t, "lstm/recurrent_gates", "gemm", KernelPass::BackwardWeight);
    CHECK(wgrad.count == 2);
    CHECK(wgrad.gemm.k == T * B);
    // One fused cell kernel per step, forward and backward (the unrolled cell launches 10 and 14).
    const KernelRow& cell = row(t, "lstm/cell", "elementwise", KernelPass::Forward);
    CHECK(cell.count == 2 * T);
    CHECK(cell.kernel.launches == 1);
    CHECK(cell.kernel.library_launches == 1);

    // The same parameters as the unrolled layers ([4d, in + d] split into W_ih and W_hh); cuDNN launches its kernels
    // itself, so no pass waits on the framework's dispatch, where the unrolled loop's 7,000-odd launches do.
    const auto a = nlohmann::json::parse(evaluate_scenario_text(text))["report"];
    const auto b = nlohmann::json::parse(evaluate_scenario_text(unrolled))["report"];
    CHECK(a["parameters"]["total"] == b["parameters"]["total"]);
    CHECK(a["time"]["breakdown"].value("forward_host_wait", 0.0) == 0);
    CHECK(b["time"]["breakdown"].value("forward_host_wait", 0.0) > 0);
    CHECK(a["time"]["step_seconds"].get<double>() * 3 < b["time"]["step_seconds"].get<double>());
    // cuDNN's own TF32 switch: fp32 GEMMs inside cuDNN on TF32 tensor cores by default, on the CUDA cores when off;
    // cuBLAS's switch (implementation.tf32, off under PyTorch) leaves them alone.
    std::string no_tf32 = text;
    no_tf32.replace(no_tf32.find("\"hardware\""), 0, "\"implementation\": {\"cudnn_tf32\": false}, ");
    const KernelTable slow = kernel_table(test::scenario(no_tf32));
    CHECK(row(slow, "lstm/input_gates", "gemm", KernelPass::Forward).kernel.seconds > 4 * input.kernel.seconds);
    CHECK(row(slow, "head/output_layer", "gemm", KernelPass::Forward).kernel.seconds ==
          doctest::Approx(row(t, "head/output_layer", "gemm", KernelPass::Forward).kernel.seconds));
    // Refusals: cuDNN on a TPU, cuDNN with one GEMM per gate, an RNN implementation for a transformer.
    std::string tpu = text;
    tpu.replace(tpu.find("h100-sxm-80gb"), 13, "tpu-v4");
    CHECK(test::error_of(tpu)["path"] == "/implementation/rnn");
    std::string split = text;
    split.replace(split.find("\"fused_gates\": true"), 19, "\"fused_gates\": false");
    CHECK(test::error_of(split)["path"] == "/model/fused_gates");
    CHECK(test::error_of(R"({"model":{"preset":"gpt2"},"implementation":{"rnn":"cudnn"}})")["path"] == "/implementation/rnn");
}

TEST_CASE("LSTMP (torch.nn.LSTM's proj_size): each layer's output projected, the recurrence and the head reading it") {
    const std::string text = R"({"framework": "pytorch", "model": {"arch": "lstm", "layers": 2, "hidden": 1024,
        "embedding_dim": 256, "proj_size": 256, "vocab": 10000, "projection": 0, "fused_gates": true, "bias": true,
        "tied_embeddings": true, "output_bias": true}, "training": {"seq_len": 35, "micro_batch": 20, "dtype": "fp32"},
        "hardware": {"preset": "h100-sxm-80gb"}})";
    const Report r = test::report(text);
    const double V = 10000, e = 256, d = 1024, p = 256, T = 35, B = 20;
    // sum(p.numel() for p in nn.LSTM(e, d, 2, proj_size=p).parameters()): per layer W_ih [4d, in], W_hh [4d, p], two
    // biases of 4d and W_hr [p, d]; the first layer reads e = p here, so both layers are alike. The output layer is
    // tied to the embedding (it reads p = e), and keeps its bias.
    CHECK(r.parameters.total == V * e + 2 * (4 * d * (e + p + 2) + p * d) + V);
    for (const char* rnn : {"cudnn", "unrolled"}) {
        CAPTURE(rnn);
        std::string s = text;
        s.replace(s.find("\"hardware\""), 0, std::string("\"implementation\": {\"rnn\": \"") + rnn + "\"}, ");
        const KernelTable t = kernel_table(test::scenario(s));
        // h_t = W_hr (o * tanh(c_t)): per step [B, d] x [d, p], in each layer.
        const KernelRow& proj = row(t, "lstm/recurrent_projection", "gemm", KernelPass::Forward);
        CHECK(proj.count == 2 * T);
        CHECK(proj.gemm.m == B);
        CHECK(proj.gemm.k == d);
        CHECK(proj.gemm.n == p);
        // The recurrence reads the projected h: p wide.
        const KernelRow& gates = std::string(rnn) == "cudnn" ? row(t, "lstm/recurrent_gates", "gemm", KernelPass::Forward)
                                                             : row(t, "lstm/gates", "gemm", KernelPass::Forward);
        CHECK(gates.gemm.k == (std::string(rnn) == "cudnn" ? p : e + p));
    }
    CHECK(test::error_of(R"({"model":{"preset":"deepflow-lstm-38b","proj_size":19968}})")["path"] == "/model/proj_size");
    CHECK(test::error_of(R"({"model":{"preset":"gpt2","proj_size":64}})")["path"] == "/model/proj_size");
    // The echo reads back to the same report.
    const nlohmann::json first = evaluate_scenario(nlohmann::json::parse(text));
    REQUIRE(first["ok"] == true);
    CHECK(first["report"]["scenario"]["model"]["proj_size"] == 256);
    const nlohmann::json again = evaluate_scenario(first["report"]["scenario"]);
    CHECK(again["report"]["time"]["step_seconds"] == first["report"]["time"]["step_seconds"]);
}
