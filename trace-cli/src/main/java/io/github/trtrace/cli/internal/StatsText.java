package io.github.trtrace.cli.internal;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The {@code stats} command's human-readable output. */
final class StatsText {
  private StatsText() {}

  static void print(PrintStream out, LineReader.Summary read, Stats s, Findings f, int kneeMinCount, BatchStats batch) {
    out.println("trtrace stats: " + read.describe());
    if (s.records == 0) {
      out.println("no records");
      batching(out, batch);
      problems(out, read);
      return;
    }
    out.println();
    out.println("Findings");
    for (String sentence : f.sentences) {
      out.println("  * " + sentence);
    }
    batching(out, batch);

    out.println();
    out.println("Latency by model and status");
    Table t = new Table("model", "status", ">count", ">p50", ">p90", ">p99", ">max");
    for (Map.Entry<String, Map<String, Stats.Group>> m : s.groups.entrySet()) {
      for (Map.Entry<String, Stats.Group> g : m.getValue().entrySet()) {
        Hist h = g.getValue().latency;
        t.row(m.getKey(), g.getKey(), Fmt.count(h.count()), Fmt.ms(h.percentile(50)), Fmt.ms(h.percentile(90)),
            Fmt.ms(h.percentile(99)), Fmt.ms(h.max()));
      }
    }
    t.row("(all)", "(all)", Fmt.count(s.all.count()), Fmt.ms(s.all.percentile(50)), Fmt.ms(s.all.percentile(90)),
        Fmt.ms(s.all.percentile(99)), Fmt.ms(s.all.max()));
    t.print(out);

    if (s.withStages > 0) {
      out.println();
      out.println("Where time went (" + Fmt.count(s.withStages) + " records with stage times)");
      Table st = new Table("stage", ">share of latency", ">mean", ">records", ">dominant in");
      double queue = 0;
      double compute = 0;
      for (int i = 0; i < Stages.COUNT; i++) {
        if (s.stageSeen[i] == 0) {
          continue;
        }
        double share = s.share(i);
        if (i == 0) {
          queue += share;
        } else {
          compute += share;
        }
        st.row(Stages.NAMES[i], Fmt.pct(share), Fmt.ms(s.stageSum[i] / s.stageSeen[i]), Fmt.count(s.stageSeen[i]),
            Fmt.pct((double) s.dominant[i] / s.withStages));
      }
      if (s.gpuSeen > 0) {
        st.row("  gpu (in infer)", Fmt.pct(s.gpuSum / s.latencySumWithStages), Fmt.ms(s.gpuSum / s.gpuSeen),
            Fmt.count(s.gpuSeen), "");
      }
      st.print(out);
      out.println("  queue " + Fmt.pct(queue) + " vs compute " + Fmt.pct(compute) + " of summed latency");
    }

    out.println();
    List<Stats.Bucket> used = s.usedBuckets(1);
    out.println("Latency against input tokens (successful requests; " + Fmt.count(s.withTokens) + " with input_tokens)");
    if (used.isEmpty()) {
      out.println("  no record has input_tokens");
    } else {
      Table bt = new Table(">tokens", ">count", ">p50", ">p90", ">max", ">mean queue", ">p50 compute",
          ">compute per token", "");
      for (Stats.Bucket b : used) {
        double p50 = b.latency.percentile(50);
        String range = b.hi == Long.MAX_VALUE ? b.lo + "+" : b.lo + "-" + (b.hi - 1);
        boolean aboveKnee = f.knee.found() && b.meanTokens() > f.knee.knee();
        bt.row(range, Fmt.count(b.count), Fmt.ms(p50), Fmt.ms(b.latency.percentile(90)), Fmt.ms(b.latency.max()),
            Fmt.ms(b.stageSum[0] / b.count), Fmt.ms(b.compute.percentile(50)),
            String.format(java.util.Locale.ROOT, "%.3g ms", b.compute.percentile(50) / Math.max(1, b.meanTokens())),
            ((aboveKnee ? "above knee" : "") + (b.count < kneeMinCount ? " (fitted with its neighbours)" : "")).strip());
      }
      bt.print(out);
      out.println("  " + (f.knee.found() ? "Knee: " : "") + f.knee.reason()
          + " (fitted to the buckets' median compute time, latency less queue_ms; buckets with fewer than "
          + kneeMinCount + " requests merged with their neighbours)");
    }

    slowTable(out, "Slowest " + s.slowest().size() + " requests", s.slowest());
    slowTable(out, "Slowest " + s.slowestByCompute().size() + " successful requests by compute time (latency less"
        + " queue: slow for their input, not for a backlog)", s.slowestByCompute());

    out.println();
    out.println("Status and error types");
    Table et = new Table("status / error_type", ">count");
    s.statusCounts.forEach((k, v) -> et.row(k, Fmt.count(v)));
    s.errorTypes.forEach((k, v) -> et.row("  " + k, Fmt.count(v)));
    et.print(out);

    out.println();
    out.println("Input flags x output flags x status");
    Table ft = new Table("input flags", "output flags", "status", ">count");
    for (Map.Entry<String, Long> e : s.flagTable.entrySet()) {
      String[] k = e.getKey().split("\t", -1);
      ft.row(k[0], k.length > 1 ? k[1] : "", k.length > 2 ? k[2] : "", Fmt.count(e.getValue()));
    }
    ft.print(out);
    problems(out, read);
  }

  /** The batch-level findings and the launches by phase, when the logs have launches or batching fields. */
  private static void batching(PrintStream out, BatchStats b) {
    if (!b.any()) {
      return;
    }
    out.println();
    // Records alone carry their launches' summary but no launch lines: say so, not "0 launches".
    String launches = b.launches > 0 ? Fmt.count(b.launches) + " launches"
        : "no launch-log lines among the files read: pass the launch log too for the launches by phase";
    out.println("Batching (" + launches + ", " + Fmt.count(b.tpot.count())
        + " successful requests with launches and TPOT)");
    for (String sentence : b.sentences()) {
      out.println("  * " + sentence);
    }
    if (b.launches > 0) {
      Table t = new Table("phase", ">launches");
      b.phases.forEach((k, v) -> t.row(k, Fmt.count(v)));
      t.print(out);
      for (int i = 1; i < b.offExamples.size(); i++) {
        out.println("  also: " + b.offExamples.get(i));
      }
      if (b.failedLaunches > 0) {
        out.println("  failed launches: " + Fmt.count(b.failedLaunches));
      }
    }
  }

  private static void slowTable(PrintStream out, String title, List<Stats.Slow> slow) {
    if (slow.isEmpty()) {
      return;
    }
    out.println();
    out.println(title);
    Table sl = new Table("request_id", "model", "status", ">latency", ">compute", ">input", ">output", "dominant stage",
        "input flags", "output flags");
    for (Stats.Slow x : slow) {
      sl.row(x.requestId(), x.model(), x.status(), Fmt.ms(x.latencyMs()), Fmt.ms(x.computeMs()),
          x.inputTokens() < 0 ? "-" : Fmt.count(x.inputTokens()), x.outputTokens() < 0 ? "-" : Fmt.count(x.outputTokens()),
          x.dominantStage() + (Double.isNaN(x.dominantMs()) ? "" : " " + Fmt.ms(x.dominantMs())), x.inputFlags(),
          x.outputFlags());
    }
    sl.print(out);
  }

  static void problems(PrintStream out, LineReader.Summary read) {
    if (!read.examples.isEmpty()) {
      out.println();
      out.println("Skipped lines (first " + read.examples.size() + ")");
      for (String e : read.examples) {
        out.println("  " + e);
      }
    }
  }

  /** A plain text table; a header starting with '>' is right-aligned. */
  static final class Table {
    private final String[] headers;
    private final boolean[] right;
    private final List<String[]> rows = new ArrayList<>();

    Table(String... headers) {
      this.headers = new String[headers.length];
      this.right = new boolean[headers.length];
      for (int i = 0; i < headers.length; i++) {
        right[i] = headers[i].startsWith(">");
        this.headers[i] = right[i] ? headers[i].substring(1) : headers[i];
      }
    }

    void row(String... cells) {
      String[] safe = new String[cells.length];
      for (int i = 0; i < cells.length; i++) {
        safe[i] = Fmt.visible(cells[i]); // request IDs, models, error types come from the log: no raw controls
      }
      rows.add(safe);
    }

    void print(PrintStream out) {
      int[] w = new int[headers.length];
      for (int i = 0; i < headers.length; i++) {
        w[i] = headers[i].length();
        for (String[] r : rows) {
          w[i] = Math.max(w[i], r[i].length());
        }
      }
      line(out, headers, w);
      for (String[] r : rows) {
        line(out, r, w);
      }
    }

    private void line(PrintStream out, String[] cells, int[] w) {
      StringBuilder sb = new StringBuilder("  ");
      for (int i = 0; i < cells.length; i++) {
        String c = cells[i];
        String pad = " ".repeat(w[i] - c.length());
        sb.append(right[i] ? pad + c : c + pad);
        if (i < cells.length - 1) {
          sb.append("  ");
        }
      }
      out.println(sb.toString().stripTrailing());
    }
  }
}
