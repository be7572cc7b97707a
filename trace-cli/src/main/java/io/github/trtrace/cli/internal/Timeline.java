package io.github.trtrace.cli.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.trtrace.core.RecordConvention;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** One record as the {@code find} command prints it: summary, stage waterfall, events, flags, the rest. */
final class Timeline {
  static final int BAR = 50;

  private Timeline() {}

  static String render(JsonNode r, String where) {
    StringBuilder sb = new StringBuilder();
    double latency = num(r, RecordConvention.LATENCY_MS);
    sb.append("request ").append(text(r, RecordConvention.REQUEST_ID)).append("   (").append(where).append(")\n");
    sb.append("  ").append(text(r, RecordConvention.TIMESTAMP)).append("  model ").append(text(r, RecordConvention.MODEL_NAME))
        .append("  status ").append(text(r, RecordConvention.STATUS));
    if (r.hasNonNull(RecordConvention.ERROR_TYPE)) {
      sb.append(" (").append(text(r, RecordConvention.ERROR_TYPE)).append(')');
    }
    sb.append("  latency ").append(Fmt.ms(latency)).append('\n');
    List<String> facts = new ArrayList<>();
    fact(facts, r, RecordConvention.INPUT_TOKENS, "input tokens");
    fact(facts, r, RecordConvention.OUTPUT_TOKENS, "output tokens");
    fact(facts, r, RecordParser.MAX_TOKENS, "max_tokens");
    fact(facts, r, RecordParser.FINISH_REASON, "finish");
    msFact(facts, r, RecordConvention.TTFT_MS, "ttft");
    msFact(facts, r, RecordConvention.TPOT_MS, "tpot");
    if (!facts.isEmpty()) {
      sb.append("  ").append(String.join("   ", facts)).append('\n');
    }
    List<String> gpu = new ArrayList<>();
    fact(gpu, r, RecordConvention.GPU_UTIL, "gpu util %");
    fact(gpu, r, RecordParser.GPU_UTIL_MEAN, "gpu util mean %");
    fact(gpu, r, RecordParser.GPU_UTIL_MAX, "gpu util max %");
    fact(gpu, r, "gpu_mem_util_mean", "gpu mem util mean %");
    fact(gpu, r, RecordParser.GPU_MEM_UTIL_MAX, "gpu mem util max %");
    fact(gpu, r, RecordConvention.GPU_MEM_USED_MB, "gpu mem MB");
    fact(gpu, r, RecordConvention.ENGINE_FINGERPRINT, "engine");
    if (!gpu.isEmpty()) {
      sb.append("  ").append(String.join("   ", gpu)).append('\n');
    }
    for (String ids : new String[] {RecordConvention.TRACE_ID, RecordConvention.SPAN_ID, RecordConvention.SAMPLED_REASON}) {
      if (r.hasNonNull(ids)) {
        sb.append("  ").append(ids).append(": ").append(text(r, ids)).append('\n');
      }
    }
    sb.append("  flags: input ").append(list(r.get(RecordConvention.INPUT_FLAGS))).append("   output ")
        .append(list(r.get(RecordParser.OUTPUT_FLAGS))).append('\n');
    if (r.hasNonNull(RecordConvention.INPUT_DIGEST)) {
      sb.append("  input digest: ").append(text(r, RecordConvention.INPUT_DIGEST)).append('\n');
    }
    boolean gpuShown = waterfall(sb, r, latency);
    batching(sb, r, gpuShown);
    events(sb, r.get(RecordConvention.EVENTS));
    layers(sb, r.get(RecordConvention.LAYERS));
    JsonNode attrs = r.get(RecordConvention.ATTRIBUTES);
    if (attrs != null && attrs.isObject() && attrs.size() > 0) {
      sb.append("  attributes:\n");
      for (Iterator<Map.Entry<String, JsonNode>> it = attrs.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        sb.append("    ").append(Fmt.visible(e.getKey())).append(" = ").append(Fmt.visible(e.getValue().asText())).append('\n');
      }
    }
    return sb.toString();
  }

  /**
   * Stages one after another, each bar placed at its start within the end-to-end latency; returns
   * whether it showed the record's gpu_ms (as a part of infer).
   */
  private static boolean waterfall(StringBuilder sb, JsonNode r, double latency) {
    double total = latency;
    double sum = 0;
    for (String f : Stages.FIELDS) {
      double v = num(r, f);
      if (v >= 0) {
        sum += v;
      }
    }
    if (sum == 0) {
      sb.append("  (no stage times)\n");
      return false;
    }
    if (!(total >= sum)) {
      total = sum;
    }
    sb.append(String.format(Locale.ROOT, "  %-13s %10s %10s  %s%n", "stage", "start ms", "ms", "0" + " ".repeat(BAR - 1) + Fmt.ms(total)));
    double at = 0;
    boolean gpuShown = false;
    for (int i = 0; i < Stages.COUNT; i++) {
      double v = num(r, Stages.FIELDS[i]);
      if (!(v >= 0)) {
        continue;
      }
      sb.append(String.format(Locale.ROOT, "  %-13s %10.1f %10.1f  |%s|  %s%n", Stages.NAMES[i], at, v, bar(at, v, total),
          Fmt.pct(v / total)));
      // a batched request's gpu_ms sums its shares of every launch it rode, prefill and decode steps alike: not a
      // part of infer (it is shown with the batching fields)
      if (Stages.NAMES[i].equals("infer") && num(r, RecordConvention.GPU_MS) >= 0 && !batched(r)) {
        double g = num(r, RecordConvention.GPU_MS);
        sb.append(String.format(Locale.ROOT, "  %-13s %10s %10.1f  |%s|  %s of infer%n", "  gpu", "", g, bar(at, g, total),
            Fmt.pct(v > 0 ? g / v : Double.NaN)));
        gpuShown = true;
      }
      at += v;
    }
    if (latency - sum > 0.05 * latency) {
      double rest = latency - sum;
      sb.append(String.format(Locale.ROOT, "  %-13s %10.1f %10.1f  |%s|  %s%n", "(unaccounted)", at, rest,
          bar(at, rest, total), Fmt.pct(rest / total)));
    }
    double ttft = num(r, RecordConvention.TTFT_MS);
    if (ttft >= 0) {
      int pos = (int) Math.min(BAR - 1, Math.round(ttft / total * BAR));
      sb.append(String.format(Locale.ROOT, "  %-13s %10.1f %10s   %s^%n", "first token", ttft, "", " ".repeat(pos)));
    }
    return gpuShown;
  }

  /** The record's shared-launch fields (batched serving), and its GPU time when the waterfall did not show it. */
  private static void batching(StringBuilder sb, JsonNode r, boolean gpuShown) {
    double gpu = num(r, RecordConvention.GPU_MS);
    if (gpu >= 0 && !gpuShown) {
      sb.append("  gpu_ms ").append(Fmt.ms(gpu));
      if (batched(r)) {
        sb.append(" (its shares of the launches below, prefill and decode steps");
        if (r.hasNonNull(RecordConvention.GPU_MS_METHOD)) {
          sb.append("; share method ").append(text(r, RecordConvention.GPU_MS_METHOD));
        }
        sb.append(')');
      }
      sb.append('\n');
    }
    if (!batched(r)) {
      return;
    }
    List<String> l = new ArrayList<>();
    String ids = r.hasNonNull(RecordConvention.FIRST_LAUNCH_ID)
        ? " (launch IDs " + text(r, RecordConvention.FIRST_LAUNCH_ID) + ".." + text(r, RecordConvention.LAST_LAUNCH_ID) + ")"
        : "";
    l.add("launches " + text(r, RecordConvention.LAUNCH_COUNT) + ids);
    if (r.hasNonNull(RecordConvention.BATCH_SIZE_MEAN)) {
      l.add("batch size mean " + Fmt.num(num(r, RecordConvention.BATCH_SIZE_MEAN)) + ", max "
          + text(r, RecordConvention.BATCH_SIZE_MAX));
    }
    msFact(l, r, RecordConvention.SLOT_WAIT_MS, "slot wait");
    sb.append("  batching: ").append(String.join("   ", l)).append('\n');
    List<String> m = new ArrayList<>();
    countWithMs(m, r, RecordConvention.NEIGHBOUR_PREFILL_LAUNCHES, RecordConvention.NEIGHBOUR_PREFILL_MS,
        "steps with other requests' prefill");
    countWithMs(m, r, RecordConvention.PREEMPTIONS, RecordConvention.PREEMPTED_MS, "preemptions");
    if (r.hasNonNull(RecordConvention.FAILED_LAUNCHES)) {
      m.add("failed launches " + text(r, RecordConvention.FAILED_LAUNCHES)
          + (r.hasNonNull(RecordConvention.FAILED_LAUNCH_ID)
              ? " (launch " + text(r, RecordConvention.FAILED_LAUNCH_ID) + ")" : ""));
    }
    if (!m.isEmpty()) {
      sb.append("  ").append(String.join("   ", m)).append('\n');
    }
    JsonNode by = r.get(RecordConvention.SLOWED_BY);
    if (by != null && by.isArray() && by.size() > 0) {
      List<String> n = new ArrayList<>();
      for (JsonNode x : by) {
        n.add(text(x, RecordConvention.NEIGHBOUR_REQUEST_ID) + " (" + text(x, RecordConvention.NEIGHBOUR_PREFILL_TOKENS)
            + " prefill tokens in " + text(x, RecordConvention.NEIGHBOUR_LAUNCHES) + " of its steps)");
      }
      sb.append("  slowed by: ").append(String.join(", ", n)).append('\n');
    }
    sb.append("  (trtrace explain ").append(text(r, RecordConvention.REQUEST_ID))
        .append(" with the launch log: its launches and why it was slow)\n");
  }

  /** Whether the record rode shared launches (batched serving): its gpu_ms is then its shares of them. */
  private static boolean batched(JsonNode r) {
    return r.hasNonNull(RecordConvention.LAUNCH_COUNT);
  }

  /** "label N (T ms)" for a count field and its milliseconds field, when the count is there. */
  private static void countWithMs(List<String> out, JsonNode r, String count, String ms, String label) {
    if (r.hasNonNull(count)) {
      double t = num(r, ms);
      out.add(label + " " + text(r, count) + (t >= 0 ? " (" + Fmt.ms(t) + ")" : ""));
    }
  }

  private static String bar(double start, double len, double total) {
    int s = (int) Math.round(start / total * BAR);
    int e = (int) Math.round((start + len) / total * BAR);
    s = Math.max(0, Math.min(BAR, s));
    e = Math.max(s, Math.min(BAR, e));
    char fill = '#';
    String body = e == s && len > 0 ? "|" : String.valueOf(fill).repeat(e - s);
    int used = Math.max(e - s, body.length());
    return " ".repeat(s) + body + " ".repeat(Math.max(0, BAR - s - used));
  }

  private static void events(StringBuilder sb, JsonNode events) {
    if (events == null || !events.isArray() || events.size() == 0) {
      sb.append("  TensorRT events: none\n");
      return;
    }
    sb.append("  TensorRT events (").append(events.size()).append("):\n");
    for (JsonNode e : events) {
      double off = num(e, "offset_ms");
      sb.append(String.format(Locale.ROOT, "    %10s  %-8s %-14s %s%n", off >= 0 ? String.format(Locale.ROOT, "+%.1f ms", off) : "",
          text(e, "severity"), text(e, "kind"), text(e, "message")));
    }
  }

  private static void layers(StringBuilder sb, JsonNode layers) {
    if (layers == null || !layers.isArray() || layers.size() == 0) {
      return;
    }
    List<JsonNode> l = new ArrayList<>();
    layers.forEach(l::add);
    l.sort((a, b) -> Double.compare(num(b, "ms"), num(a, "ms")));
    sb.append("  layers (").append(l.size()).append(", slowest first):\n");
    for (int i = 0; i < Math.min(10, l.size()); i++) {
      JsonNode x = l.get(i);
      sb.append(String.format(Locale.ROOT, "    %10.3f ms  %s%n", num(x, "ms"), text(x, "name")));
    }
  }

  private static void fact(List<String> out, JsonNode r, String field, String label) {
    JsonNode v = r.get(field);
    if (v != null && !v.isNull()) {
      // a count beyond a long is printed as written (asLong() would wrap it around)
      String shown = v.isIntegralNumber() ? (v.canConvertToLong() ? Fmt.count(v.asLong()) : v.asText())
          : v.isNumber() ? Fmt.num(v.asDouble()) : Fmt.visible(v.asText());
      out.add(label + " " + shown);
    }
  }

  private static void msFact(List<String> out, JsonNode r, String field, String label) {
    double v = num(r, field);
    if (v >= 0) {
      out.add(label + " " + Fmt.ms(v));
    }
  }

  private static String list(JsonNode a) {
    if (a == null || !a.isArray() || a.size() == 0) {
      return "-";
    }
    List<String> l = new ArrayList<>();
    a.forEach(x -> l.add(Fmt.visible(x.asText())));
    return String.join(",", l);
  }

  static double num(JsonNode r, String f) {
    JsonNode v = r.get(f);
    return v != null && v.isNumber() ? v.asDouble() : Double.NaN;
  }

  static String text(JsonNode r, String f) {
    JsonNode v = r.get(f);
    return v == null || v.isNull() ? "-" : Fmt.visible(v.asText());
  }
}
