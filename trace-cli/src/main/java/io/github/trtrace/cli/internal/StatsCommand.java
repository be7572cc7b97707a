package io.github.trtrace.cli.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code trtrace stats [paths...]}. */
@Command(name = "stats", mixinStandardHelpOptions = true,
    header = "Latency percentiles, queue vs compute, knee, slowest requests.",
    description = {
      "Latency statistics from JSON Lines logs: p50/p90/p99/max by model and status, queue vs compute,",
      "latency against input tokens with a knee detector, the slowest requests, error types and",
      "input-flag x output-flag x status counts. Reads rotated (.1, .2) and gzipped files; directories",
      "are expanded; malformed and torn lines are counted and skipped. Constant memory."})
public final class StatsCommand extends LogCommand implements Callable<Integer> {
  @Parameters(paramLabel = "PATH", arity = "0..*", description = "Log files or directories (default: logs/).")
  List<Path> paths = new ArrayList<>();

  @Option(names = "--json", description = "Write one JSON object for machines instead of text.")
  boolean json;

  @Option(names = "--top", defaultValue = "" + LogAnalysis.TOP, paramLabel = "N", description = "Slowest requests listed (default: ${DEFAULT-VALUE}).")
  int top;

  @Option(names = "--knee-min-count", defaultValue = "" + Findings.KNEE_MIN_COUNT, paramLabel = "N",
      description = "Requests each point of the knee fit holds: an input-token bucket with fewer is merged with its"
          + " neighbours (default: ${DEFAULT-VALUE}).")
  int kneeMinCount;

  @Override
  public Integer call() throws Exception {
    if (top < 0 || top > 10_000) {
      throw new IllegalArgumentException("--top must be 0..10000: " + top);
    }
    LogAnalysis a = LogAnalysis.read(files(paths), top, showProgress(), Findings.kneeMinCount(kneeMinCount));
    if (json) {
      a.writeJson(out);
    } else {
      a.printStats(out);
    }
    if (a.skippedLines() && json) {
      err.println("trtrace stats: " + a.describeRead());
    }
    return 0;
  }
}
