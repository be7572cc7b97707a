package io.github.trtrace.examples.tensorrt;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Roofline arithmetic for {@link TransformerNetwork} launches: the bytes a launch must move through device
 * memory and the FLOPs it must compute, from the model's dimensions and the launch's shape (S new
 * positions after P cached ones), so that a request's achieved bandwidth and FLOP rate (bytes and FLOPs
 * over its CUDA-event device time) can be set against the GPU's peaks, and each phase classified: a launch
 * whose arithmetic intensity (FLOP per byte) is below the ridge point (peak FLOP/s over peak bytes/s) is
 * memory-bound, above it compute-bound.
 *
 * <p>The model (an estimate, stated so): matrix FLOPs only (2 per multiply-add: QKV, output projection, MLP,
 * attention scores and context over the T = P + S visible positions, LM head over the S positions); bytes:
 * every weight matrix read once per launch in the engine's precision ({@code weightBytes}: 2 for FP16),
 * embedding rows gathered, and the FP16 KV cache of each block read in place (P positions) and the S new positions
 * written ({@link TransformerNetwork#defineSlotted}); plus the masks (the row's cache positions, the step's S × S)
 * and the FP32 logits. A row's own lengths are counted, not the padding a launch adds (the slotted engine reads a
 * whole slot, masked past the row's length). Activations that stay on chip are not counted, so the bytes are a
 * floor and the achieved bandwidth an underestimate.
 *
 * <pre>{@code
 * Roofline r = Roofline.of(config, 2);
 * Roofline.Work step = r.launch(1, 2047);                    // one decode step at 2,048 positions
 * Roofline.Peak h200 = Roofline.Peak.forGpu("NVIDIA H200");   // 4.8 TB/s, 989 TFLOP/s FP16
 * String bound = step.bound(h200);                            // "memory"
 * }</pre>
 */
public final class Roofline {
  private final TransformerNetwork.Config c;
  private final int weightBytes;

  private Roofline(TransformerNetwork.Config c, int weightBytes) {
    this.c = c;
    this.weightBytes = weightBytes;
  }

  /** The arithmetic of {@code config} with weights of {@code weightBytes} bytes each (2 for FP16). */
  public static Roofline of(TransformerNetwork.Config config, int weightBytes) {
    if (weightBytes < 1) {
      throw new IllegalArgumentException("weightBytes must be >= 1: " + weightBytes);
    }
    return new Roofline(config, weightBytes);
  }

  /** Bytes and FLOPs of some launches. */
  public record Work(double bytes, double flops) {
    /** No work. */
    public static final Work NONE = new Work(0, 0);

    /** This plus {@code o}. */
    public Work plus(Work o) {
      return new Work(bytes + o.bytes, flops + o.flops);
    }

    /** FLOP per byte; 0 for no bytes. */
    public double intensity() {
      return bytes == 0 ? 0 : flops / bytes;
    }

    /** {@code "memory"} below the ridge point of {@code peak}, else {@code "compute"}. */
    public String bound(Peak peak) {
      return intensity() < peak.ridge() ? "memory" : "compute";
    }
  }

  /** A GPU's peak memory bandwidth and dense FP16 tensor FLOP rate, from its data sheet. */
  public record Peak(String gpu, double bytesPerSecond, double flopsPerSecond) {
    /** FLOP per byte at which the two roofs meet. */
    public double ridge() {
      return flopsPerSecond / bytesPerSecond;
    }

    /**
     * The data-sheet peaks of the GPUs this demo knows (H200 SXM: 4.8 TB/s HBM3e, 989 TFLOP/s dense FP16;
     * H100 SXM: 3.35 TB/s, 989 TFLOP/s), matched on the device name; null for any other GPU.
     */
    public static @Nullable Peak forGpu(String deviceName) {
      String n = deviceName.toUpperCase(Locale.ROOT);
      if (n.contains("H200")) {
        return new Peak(deviceName, 4.8e12, 989.4e12);
      }
      if (n.contains("H100")) {
        return new Peak(deviceName, 3.35e12, 989.4e12);
      }
      return null;
    }
  }

  /** One launch of {@code newPositions} (S) positions after {@code past} (P) cached ones. */
  public Work launch(int newPositions, int past) {
    double s = newPositions;
    double t = past + (double) newPositions;
    double d = c.hidden();
    double ffn = c.ffn();
    double v = c.vocab();
    double blocks = c.blocks();
    double perBlockWeights = 4 * d * d + 2 * d * ffn;   // QKV (3 d^2), output (d^2), MLP up and down
    double perBlockSmall = 9 * d + ffn;                 // biases and norm parameters
    double flops = blocks * (2 * s * perBlockWeights + 4 * s * t * d) + 2 * s * d * v;
    double weights = (blocks * (perBlockWeights + perBlockSmall) + d * v + 2 * d) * weightBytes
        + 2 * s * d * weightBytes;                      // the token and position rows gathered
    double kv = blocks * 2 * d * 2 * t;                 // FP16 K and V: the past read, the new positions written
    double io = 4 * (past + s * s) + 4 * s * v + 8 * s; // masks, logits, ids and positions
    return new Work(weights + kv + io, flops);
  }

  /** A prefill of {@code prompt} positions. */
  public Work prefill(int prompt) {
    return launch(prompt, 0);
  }

  /** One decode step with {@code past} positions cached. */
  public Work decode(int past) {
    return launch(1, past);
  }

  /**
   * What a phase achieved: its work over its device time against {@code peak}, as record attributes under
   * {@code prefix} (e.g. {@code gpu.decode.}): bytes, FLOPs, arithmetic intensity, bound, achieved GB/s and
   * TFLOP/s and their shares of the peaks. Empty when the phase had no device time.
   */
  public static Map<String, String> attributes(String prefix, Work w, double gpuMs, Peak peak) {
    return attributes(prefix, w, gpuMs, peak, true);
  }

  /**
   * What {@link #attributes} gives for a phase of a request whose totals are recorded already: bound,
   * arithmetic intensity and the shares of the peaks, without the raw bytes, FLOPs, GB/s and TFLOP/s
   * (not computed at all: the figures are formatted per request).
   */
  public static Map<String, String> phaseAttributes(String prefix, Work w, double gpuMs, Peak peak) {
    return attributes(prefix, w, gpuMs, peak, false);
  }

  private static Map<String, String> attributes(String prefix, Work w, double gpuMs, Peak peak, boolean totals) {
    Map<String, String> a = new LinkedHashMap<>();
    if (!(gpuMs > 0) || w.bytes() == 0) {
      return a;
    }
    double seconds = gpuMs / 1e3;
    double bw = w.bytes() / seconds;
    double fl = w.flops() / seconds;
    a.put(prefix + "bound", w.bound(peak));
    a.put(prefix + "arith_intensity", fmt("%.2f", w.intensity()));
    if (totals) {
      a.put(prefix + "bytes", fmt("%.0f", w.bytes()));
      a.put(prefix + "flops", fmt("%.0f", w.flops()));
      a.put(prefix + "mem_bw_gbs", fmt("%.1f", bw / 1e9));
    }
    a.put(prefix + "mem_bw_util", fmt("%.3f", bw / peak.bytesPerSecond()));
    if (totals) {
      a.put(prefix + "tflops", fmt("%.2f", fl / 1e12));
    }
    a.put(prefix + "flops_util", fmt("%.3f", fl / peak.flopsPerSecond()));
    return a;
  }

  private static String fmt(String f, double v) {
    return String.format(Locale.ROOT, f, v);
  }
}
