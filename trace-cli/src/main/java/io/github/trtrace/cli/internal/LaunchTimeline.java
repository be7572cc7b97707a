package io.github.trtrace.cli.internal;

import io.github.trtrace.core.RecordConvention;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The report's section on one request ({@code report --request}): the {@code explain} sentence and its
 * launches on a timeline, one lane for the request and one for each of its busiest neighbours. In the
 * request's lane a step is coloured by what it did (its own prefill, a decode-only step, a decode step
 * that carried another request's prefill); in a neighbour's lane, by what the neighbour did in that step
 * (prefill or decode). Its wait for a slot is drawn before its first launch; a gap is a preemption.
 */
final class LaunchTimeline {
  /** Neighbour lanes drawn: those that prefilled in its decode steps first, then those that shared most steps. */
  static final int LANES = 6;

  private LaunchTimeline() {}

  static void section(StringBuilder h, Explanation e) {
    String id = e.join.requestId;
    h.append("<section id=\"request\"><h2>Request ").append(Html.esc(id)).append("</h2><p id=\"request-why\" class=\"why\">")
        .append(Html.esc(e.sentence)).append("</p><p class=\"sub\">").append(Html.esc(e.coverage())).append("</p>");
    if (!e.sharesOff.isEmpty()) {
      h.append("<p id=\"request-shares-off\" class=\"why\">Shares do not add up in ").append(e.sharesOff.size())
          .append(" of its launches, e.g. ").append(Html.esc(e.sharesOff.get(0).sharesOffText())).append("</p>");
    }
    if (!e.join.launches.isEmpty()) {
      h.append("<figure>").append(svg(e)).append("<figcaption>Its ").append(e.join.launches.size())
          .append(" launches, by host time from each launch's start; below, its neighbours in the same launches.")
          .append(" Red: its decode steps that carried another request's prefill; orange: a neighbour's prefill.")
          .append("</figcaption></figure>");
    }
    kernels(h, e.kernels, e.join.launches.size());
    profiled(h, e.profiledLayers, e.join.launches.size());
    h.append("</section>\n");
  }

  /** Its slowest kernels as bars of their share of launch time (kernels lines of its recorded launches). */
  static void kernels(StringBuilder h, KernelBreakdown k, int launches) {
    if (k.recorded() == 0) {
      return;
    }
    h.append("<h3>Slowest kernels</h3><p class=\"sub\">CUPTI kernel records of ").append(k.recorded()).append(" of its ")
        .append(launches).append(" launches: ").append(Html.esc(KernelBreakdown.ms(k.kernelMs()))).append(" of kernels in ")
        .append(Html.esc(KernelBreakdown.ms(k.launchMs()))).append(" of launch time (gpu_ms)")
        .append(Html.esc(k.hostWaitNote())).append(Html.esc(k.incompleteNote())).append(".</p>")
        .append("<table id=\"request-kernels\"><tr><th>kernel</th><th>ms</th><th>launches</th><th>share of launch time</th></tr>");
    for (KernelBreakdown.Kernel x : k.slowest()) {
      row(h, x);
      h.append("</tr>");
    }
    h.append("</table>");
    layers(h, k.layers());
  }

  /** The same kernels' time by the engine layer that ran them, when a build report was given. */
  static void layers(StringBuilder h, KernelBreakdown.@Nullable Layers l) {
    if (l == null) {
      return;
    }
    String engine = l.engineLabel();
    if (l.otherEngine() > 0) {
      h.append("<p class=\"sub\">The build report (").append(Html.esc(engine)).append(") is not of the engine that ran ")
          .append(l.otherEngine()).append(" of its recorded launches; those are left out of the layer table.</p>");
    }
    if (l.kernels() == 0 || l.matched() == 0) {
      return;
    }
    h.append("<h3>By engine layer</h3><p class=\"sub\">Build report of ").append(Html.esc(engine))
        .append(": its tactics named ").append(l.matched()).append(" of ").append(l.kernels()).append(" kernels.</p>")
        .append("<table id=\"request-layers\"><tr><th>engine layer</th><th>ms</th><th>launches</th>")
        .append("<th>share of launch time</th><th>network layers</th></tr>");
    for (KernelBreakdown.Kernel x : l.slowest()) {
      row(h, x);
      h.append("<td>").append(Html.esc(ExplainText.absorbed(l.networkLayers().getOrDefault(x.name(), List.of()))))
          .append("</td></tr>");
    }
    h.append("</table>");
  }

  /** Its slowest engine layers as TensorRT's profiler timed them in its profiled launches (their layer tables). */
  static void profiled(StringBuilder h, ProfiledLayers p, int launches) {
    if (p.profiled() == 0) {
      return;
    }
    boolean named = !p.networkLayers().isEmpty();
    h.append("<h3>Profiled engine layers</h3><p class=\"sub\">TensorRT's profiler in ").append(p.profiled())
        .append(" of its ").append(launches).append(" launches: ").append(Html.esc(KernelBreakdown.ms(p.layerMs())))
        .append(" of layers in ").append(Html.esc(KernelBreakdown.ms(p.launchMs())))
        .append(" of launch time (gpu_ms; a profiled launch times each layer apart and runs slower than the others)")
        .append(p.layerMs() > p.launchMs() ? "; the layer times add up to more than the launches' CUDA-event time:"
            + " compare the layers with one another" : "").append(".</p>")
        .append("<table id=\"request-profiled-layers\"><tr><th>engine layer</th><th>ms</th><th>launches</th>")
        .append("<th>share of launch time</th>").append(named ? "<th>network layers</th>" : "").append("</tr>");
    for (KernelBreakdown.Kernel x : p.slowest()) {
      row(h, x);
      if (named) {
        h.append("<td>").append(Html.esc(ExplainText.absorbed(p.networkLayers().getOrDefault(x.name(), List.of()))))
            .append("</td>");
      }
      h.append("</tr>");
    }
    h.append("</table>");
  }

  /** A kernel's or a layer's row, left open: name, ms, launches, its share of launch time as a bar. */
  private static void row(StringBuilder h, KernelBreakdown.Kernel x) {
    double pct = Double.isNaN(x.share()) ? 0 : Math.max(0, Math.min(100, 100 * x.share()));
    h.append("<tr><td class=\"mono\" title=\"").append(Html.esc(x.name())).append("\">")
        .append(Html.esc(ExplainText.shorten(x.name()))).append("</td><td>").append(Html.esc(KernelBreakdown.ms(x.ms())))
        .append("</td><td>").append(x.launches()).append("</td><td><svg class=\"kbar\" width=\"160\" height=\"12\"")
        .append(" role=\"img\"><rect x=\"0\" y=\"1\" height=\"10\" width=\"")
        .append(String.format(Locale.ROOT, "%.1f", 1.6 * pct)).append("\"></rect></svg> ")
        .append(Double.isNaN(x.share()) ? "-" : String.format(Locale.ROOT, "%.1f %%", pct)).append("</td>");
  }

  private static String svg(Explanation e) {
    List<LaunchLine> launches = e.join.launches;
    List<String> lanes = lanes(e);
    long first = launches.get(0).timestampMicros;
    double end = 1;
    for (LaunchLine l : launches) {
      end = Math.max(end, at(l, first) + Math.max(0, l.hostMs));
    }
    double slot = Math.max(0, e.num(RecordConvention.SLOT_WAIT_MS, 0));
    int laneH = 22;
    int top = 34;
    int height = laneH * lanes.size();
    Svg g = new Svg("request-timeline", "Launches of " + e.join.requestId + " and its neighbours", -slot, end * 1.02, false,
        0, lanes.size(), top, height, top + height + 48);
    g.axes("ms since its first launch", "", Fmt::num, v -> "");
    for (int i = 0; i < lanes.size(); i++) {
      g.text(Svg.LEFT - 4, top + i * laneH + laneH / 2.0 + 4, shortId(lanes.get(i)), "lane-label", "end");
    }
    if (slot > 0) {
      g.rect(g.px(-slot), top + 3, g.px(0) - g.px(-slot), laneH - 6, "slot-wait",
          "waited " + Fmt.ms(slot) + " for a batch slot");
    }
    StringBuilder rects = new StringBuilder("<g class=\"launches\">");
    for (LaunchLine l : launches) {
      double x = g.px(at(l, first));
      double w = Math.max(0.8, g.px(at(l, first) + Math.max(0, l.hostMs)) - x - 0.3);
      int self = l.indexOf(e.join.requestId);
      String cls = l.failed() ? "step failed" : l.memberPrefill[self] > 0 ? "step own-prefill"
          : l.othersPrefill(self) ? "step shared" : "step decode";
      rect(rects, x, top + 3, w, laneH - 6, cls, l.id, String.format(Locale.ROOT, "launch %d, %s, batch %d, %s host ms%s",
          l.id, l.phase, l.batchSize, Fmt.num(l.hostMs), l.failed() ? ", failed" : ""));
      for (int i = 0; i < l.members; i++) {
        int lane = i == self ? -1 : lanes.indexOf(l.memberIds[i]);
        if (lane > 0) {
          boolean prefill = l.memberPrefill[i] > 0;
          rect(rects, x, top + lane * laneH + 5, w, laneH - 10, prefill ? "nb prefill" : "nb decode", l.id,
              String.format(Locale.ROOT, "%s in launch %d: %s", l.memberIds[i], l.id,
                  prefill ? Fmt.count(l.memberPrefill[i]) + " prefill tokens" : "decode"));
        }
      }
    }
    g.raw(rects.append("</g>").toString());
    return g.end();
  }

  private static void rect(StringBuilder sb, double x, double y, double w, double h, String cls, long launch, String tip) {
    sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"%s\""
        + " data-launch=\"%d\"><title>", x, y, w, h, cls, launch)).append(Html.esc(tip)).append("</title></rect>");
  }

  /** The request first, then neighbours: prefilling in its decode steps (most steps first), then most shared launches. */
  static List<String> lanes(Explanation e) {
    List<String> lanes = new ArrayList<>();
    lanes.add(e.join.requestId);
    for (Explanation.Neighbour n : e.neighbours) {
      if (lanes.size() > LANES) {
        break;
      }
      lanes.add(n.requestId());
    }
    Map<String, Integer> shared = new LinkedHashMap<>();
    for (LaunchLine l : e.join.launches) {
      for (int i = 0; i < l.members; i++) {
        shared.merge(l.memberIds[i], 1, Integer::sum);
      }
    }
    shared.entrySet().stream().filter(x -> !lanes.contains(x.getKey()))
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
        .limit(Math.max(0, LANES + 1 - lanes.size())).forEach(x -> lanes.add(x.getKey()));
    return lanes;
  }

  private static double at(LaunchLine l, long firstMicros) {
    return l.timestampMicros == Rec.NO_TIME || firstMicros == Rec.NO_TIME ? 0 : (l.timestampMicros - firstMicros) / 1000.0;
  }

  private static String shortId(String id) {
    return id.length() <= 11 ? id : id.substring(0, 10) + "…";
  }

  static final String CSS = String.join("",
      ".why{padding:8px 12px;border-left:5px solid #c92a2a;background:#fff5f5;font-weight:600}",
      ".lane-label{font-size:10px;fill:#3e4c59;font-family:ui-monospace,Menlo,Consolas,monospace}",
      ".step.decode{fill:#7b8794}.step.shared{fill:#c92a2a}.step.own-prefill{fill:#2680c2}.step.failed{fill:#1f2933}",
      ".nb.prefill{fill:#e8590c}.nb.decode{fill:#cbd2d9}.slot-wait{fill:#f0b429;fill-opacity:.5}",
      ".kbar{background:#e4e7eb;vertical-align:middle}.kbar rect{fill:#2680c2}");
}
