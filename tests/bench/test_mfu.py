"""The MFU benchmark counts FLOPs as torch does and runs both models (tiny, on the CPU)."""
import torch
from torch.utils.flop_counter import FlopCounterMode

from conftest import COURSE
from course_utils.bench import mfu
from course_utils.qa.solution_code import solution_namespace

SMALL = mfu.ModelShape(d_model=64, num_heads=4, num_layers=2, d_ff=96, vocab=70, dropout=0.0, batch=3, src_len=10,
                       tgt_len=7)


def test_forward_flops_match_torchs_count_of_the_course_model():
    """torch's FlopCounterMode, run over notebook 07's model (naive attention, whose products it sees)."""
    Transformer = solution_namespace(COURSE, "07_encoder_decoder")["Transformer"]
    model = Transformer(SMALL.vocab, SMALL.vocab, SMALL.d_model, SMALL.num_heads, SMALL.num_layers, SMALL.d_ff,
                        dropout=0.0, max_len=16).eval()
    src, tgt_in, _ = mfu._batch(SMALL, "cpu")
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        model(src, tgt_in)
    assert counter.get_total_flops() == mfu.forward_flops(SMALL)
    assert mfu.training_flops(SMALL) == 3 * mfu.forward_flops(SMALL)


def test_the_fused_course_model_computes_what_the_course_model_does():
    torch.manual_seed(0)
    fused = mfu.course_model(COURSE, SMALL).eval()
    Transformer = solution_namespace(COURSE, "07_encoder_decoder")["Transformer"]
    naive = Transformer(SMALL.vocab, SMALL.vocab, SMALL.d_model, SMALL.num_heads, SMALL.num_layers, SMALL.d_ff,
                        dropout=0.0, max_len=max(SMALL.src_len, SMALL.tgt_len)).eval()
    naive.load_state_dict(fused.state_dict())
    src, tgt_in, _ = mfu._batch(SMALL, "cpu")
    causal = torch.ones(SMALL.tgt_len, SMALL.tgt_len, dtype=torch.bool).tril()
    with torch.no_grad():
        torch.testing.assert_close(fused(src, tgt_in), naive(src, tgt_in, None, causal), atol=1e-5, rtol=1e-4)


def test_bench_runs_both_models_and_reports_against_nn_transformer():
    rows = mfu.bench(COURSE, mfu.QUICK, "cpu", compile_modes=(False,), repeats=1)
    assert [r.model for r in rows] == ["course (notebook 07)", "nn.Transformer"]
    assert all(r.mfu is None and r.step_ms > 0 for r in rows), "no MFU without a known GPU peak"
    # The same model built twice; nn.Transformer adds a final LayerNorm (weight, bias) to each stack.
    assert rows[1].parameters - rows[0].parameters == 2 * 2 * mfu.QUICK.d_model
    table = mfu.table_rows(rows)
    assert table[1][-1] == 1.0 and len(table[0]) == len(mfu.HEADERS)


def test_peaks_are_known_for_the_gpus_the_course_runs_on():
    assert mfu.peak_tflops("NVIDIA H100 80GB HBM3") == mfu.peak_tflops("NVIDIA H200") == 989.4
    assert mfu.peak_tflops("cpu") is None


def test_time_categories_sort_kernels_by_what_they_do():
    rows = mfu.time_categories({"sm90_xmma_gemm_bf16": 6.0, "flash_fwd_kernel": 2.0,
                                "cunn_SoftMaxForward": 1.0, "vectorized_elementwise_kernel<add>": 1.0})
    assert rows[0] == ("matrix products", 6.0, 0.6)
    assert {r[0] for r in rows} == {"matrix products", "fused attention", "softmax and loss", "other elementwise"}
    assert abs(sum(r[2] for r in rows) - 1.0) < 1e-9
