package io.github.trtrace.tensorrt.model.build;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** The questions a {@link BuildReport} answers about its layers: fused or not, and why one is as it is. */
final class LayerQueries {
  private LayerQueries() {}

  static boolean allFused(List<BuildReport.Layer> layers, List<BuildReport.FusedGroup> groups, Pattern p) {
    boolean any = false;
    for (BuildReport.Layer l : layers) {
      if (builderInserted(l)) {
        continue;
      }
      BuildReport.FusedGroup g = groupOf(groups, l.name());
      boolean matches =
          p.matcher(l.name()).find()
              || (g != null && g.networkLayers().stream().anyMatch(n -> p.matcher(n).find()));
      if (matches) {
        any = true;
        if (g == null) {
          return false;
        }
      }
    }
    if (layers.isEmpty()) {
      for (BuildReport.FusedGroup g : groups) {
        any |= g.networkLayers().stream().anyMatch(n -> p.matcher(n).find());
      }
    }
    return any;
  }

  static BuildReport.LayerExplanation explain(BuildReport report, String engineLayer) {
    BuildReport.Layer layer = null;
    for (BuildReport.Layer l : report.layers()) {
      if (l.name().equals(engineLayer)) {
        layer = l;
        break;
      }
    }
    BuildReport.FusedGroup g = groupOf(report.fusedGroups(), engineLayer);
    List<String> absorbed = g == null ? List.of() : g.networkLayers();
    List<String> names = new ArrayList<>(absorbed);
    names.add(engineLayer);
    List<String> named = new ArrayList<>();
    for (String w : report.warnings()) {
      if (names.stream().anyMatch(n -> mentions(w, n))) {
        named.add(w);
      }
    }
    return new BuildReport.LayerExplanation(engineLayer, layer, absorbed, named);
  }

  private static boolean builderInserted(BuildReport.Layer l) {
    return "Reformat".equals(l.type()) || "NoOp".equals(l.type()) || l.name().startsWith("Reformatting CopyNode");
  }

  private static BuildReport.@Nullable FusedGroup groupOf(List<BuildReport.FusedGroup> groups, String engineLayer) {
    for (BuildReport.FusedGroup g : groups) {
      if (g.engineLayer().equals(engineLayer)) {
        return g;
      }
    }
    return null;
  }

  /** Whether {@code text} names {@code layer} as a whole name (so "fc1" does not match "fc10"). */
  private static boolean mentions(String text, String layer) {
    int from = 0;
    while (!layer.isEmpty()) {
      int i = text.indexOf(layer, from);
      if (i < 0) {
        return false;
      }
      int end = i + layer.length();
      boolean startOk = i == 0 || !isNamePart(text.charAt(i - 1));
      boolean endOk = end == text.length() || !isNamePart(text.charAt(end));
      if (startOk && endOk) {
        return true;
      }
      from = i + 1;
    }
    return false;
  }

  private static boolean isNamePart(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }
}
