package io.github.trtrace.tensorrt.model.build;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which engine layer ran each kernel of one launch: the launch's kernels (CUPTI's names, in the order they started)
 * walked against the build report's layers (the inspector's engine order), each kernel given to the first layer at
 * or after the current one whose tactic names it. TensorRT's inspector names a layer's tactic, and the kernels it
 * launches carry that name:
 * <ul>
 *   <li>a Myelin-generated kernel is the tactic itself ({@code __myl_<ops>_0x<hash>}), possibly with a variant
 *       suffix ({@code _vec}, {@code _com}, {@code _com_vec}): matched on the name without the suffix;
 *   <li>a library kernel (cuBLAS/xmma GEMM, ...) starts with the tactic name and adds its entry point ({@code
 *       _execute_kernel_trt}, {@code _execute_split_k_kern...}): matched as a prefix;
 *   <li>a reformatting layer ({@code Reformat}, no tactic named) runs one of TensorRT's reformat kernels ({@code
 *       genericReformat::}, {@code cuInt8::}): one kernel per layer.
 * </ul>
 * A layer with a tactic may run several kernels (a split-K GEMM and its reduction; a Myelin kernel's variants), but
 * not the same kernel twice in a row: a kernel name the current layer already ran moves on to the next layer that
 * names it (two GEMM layers with one tactic, back to back). A kernel no layer at or after the current one names
 * stays unmatched (null) and the walk goes on from where it was. Needs a report with tactics (a build with detailed
 * profiling verbosity); without, nothing but reformats matches. Checked on the H200 (TensorRT 10.6, the batched
 * transformer): all 72 kernels of a decode launch and all 64 of a prefill launch matched.
 */
final class KernelLayers {
  private static final String[] MYELIN_SUFFIXES = {"_com_vec", "_vec", "_com"};

  private KernelLayers() {}

  static List<BuildReport.@Nullable Layer> match(List<BuildReport.Layer> layers, List<String> kernels) {
    List<BuildReport.@Nullable Layer> out = new ArrayList<>(kernels.size());
    int at = 0;
    Set<String> ranHere = new HashSet<>();
    for (String kernel : kernels) {
      int found = -1;
      for (int j = at; j < layers.size(); j++) {
        if (names(layers.get(j), kernel) && !(j == at && ranHere.contains(kernel))) {
          found = j;
          break;
        }
      }
      if (found < 0) {
        out.add(null);
        continue;
      }
      if (found != at) {
        at = found;
        ranHere.clear();
      }
      BuildReport.Layer layer = layers.get(at);
      out.add(layer);
      ranHere.add(kernel);
      if (layer.tactic() == null || layer.tactic().isEmpty()) {
        at++; // a reformat runs one kernel
        ranHere.clear();
      }
    }
    return out;
  }

  /** Whether {@code layer}'s tactic (or, for a reformat, its type) names {@code kernel}. */
  static boolean names(BuildReport.Layer layer, String kernel) {
    String tactic = layer.tactic();
    if (tactic == null || tactic.isEmpty()) {
      return "Reformat".equals(layer.type())
          && (kernel.contains("genericReformat::") || kernel.contains("cuInt8::"));
    }
    if (kernel.startsWith(tactic)) {
      return true;
    }
    return tactic.startsWith("__myl_") && withoutVariant(kernel).equals(withoutVariant(tactic));
  }

  private static String withoutVariant(String name) {
    for (String s : MYELIN_SUFFIXES) {
      if (name.endsWith(s)) {
        return name.substring(0, name.length() - s.length());
      }
    }
    return name;
  }
}
