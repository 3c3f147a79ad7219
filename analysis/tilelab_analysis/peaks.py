"""Which math a case ran, and the device's peak for that math: the roof its % of peak is measured against.

The runner writes two peaks into a file's /env: FP32 (SIMT lanes x 2 x the peak SM clock, from the CUDA
programming guide's throughput table) and DRAM (2 x memory clock x bus width). The driver reports no
tensor-core rates, so they come from FLOP_PER_CLOCK below: dense multiply-add throughput per SM per clock
from NVIDIA's architecture whitepapers, scaled by the file's own FP32 peak (same SMs, same clock):

    peak(math) = peak_fp32_gflops x FLOP_PER_CLOCK[arch][math] / FLOP_PER_CLOCK[arch]["fp32"]

tf32x3 (an FP32-accurate product from three TF32 products) is placed under a third of the TF32 peak.
"""
import math as _math

# Dense FLOP per SM per clock (a multiply-add counts 2), by compute capability, for the maths tilelab
# runs. Missing entries mean "no such unit" or "not in the table": such a case has no % of peak.
FLOP_PER_CLOCK = {
    "7.0": {"fp32": 128, "fp16": 1024, "fp64": 64},                                   # V100
    "7.5": {"fp32": 128, "fp16": 1024},                                               # T4, Turing
    "8.0": {"fp32": 128, "tf32": 1024, "bf16": 2048, "fp16": 2048, "fp64": 128},      # A100
    "8.6": {"fp32": 256, "tf32": 512, "bf16": 1024, "fp16": 1024},                    # A40, A10 (GeForce: half with FP32 accumulate)
    "8.9": {"fp32": 256, "tf32": 512, "bf16": 1024, "fp16": 1024},                    # L40S, L4
    "9.0": {"fp32": 256, "tf32": 2048, "bf16": 4096, "fp16": 4096, "fp64": 256},      # H100, H200
    "10.0": {"fp32": 256, "tf32": 4096, "bf16": 8192, "fp16": 8192, "fp64": 256},     # B200
}

# How each math is named where a percentage is printed.
NAMES = {"fp32": "FP32 SIMT", "tf32": "TF32 tensor", "tf32x3": "TF32 tensor / 3", "bf16": "BF16 tensor",
         "fp16": "FP16 tensor", "fp64": "FP64", "dram": "DRAM"}

# A case's dtype -> the math its products use (sgemm's tf32 and bf16 run on the tensor cores).
DTYPE_MATH = {"tf32": "tf32", "bf16": "bf16", "f16": "fp16", "fp16": "fp16", "f64": "fp64"}


def case_math(rate_name, variant, dtype, dispatch=""):
    """The math a case is judged by: "dram" for a bandwidth op; for FLOP: tf32x3 when the variant or the rung
    a dispatching variant ran (its `dispatch`, which starts with the rung's name) is tf32x3; else by dtype
    (DTYPE_MATH), FP32 SIMT otherwise."""
    if rate_name == "GB/s":
        return "dram"
    rung = (dispatch or "").split(" ", 1)[0]
    if variant == "tf32x3" or rung == "tf32x3":
        return "tf32x3"
    return DTYPE_MATH.get(dtype or "", "fp32")


def _num(v):
    try:
        v = float(v)
    except (TypeError, ValueError):
        return _math.nan
    return v if v > 0 else _math.nan


def peak(env, math):
    """The device's peak for math in GFLOP/s (GB/s for "dram"), NaN when /env or the table lacks it."""
    if math == "dram":
        return _num(env.get("peak_dram_gbs"))
    fp32 = _num(env.get("peak_fp32_gflops"))
    if math == "fp32":
        return fp32
    rates = FLOP_PER_CLOCK.get(str(env.get("compute_capability", "")), {})
    unit = "tf32" if math == "tf32x3" else math
    if unit not in rates or "fp32" not in rates:
        return _math.nan
    return fp32 * rates[unit] / rates["fp32"] / (3 if math == "tf32x3" else 1)
