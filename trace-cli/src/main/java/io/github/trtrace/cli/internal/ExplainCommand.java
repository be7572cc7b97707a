package io.github.trtrace.cli.internal;

import io.github.trtrace.tensorrt.model.build.BuildReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code trtrace explain <request-id> [paths...]}. */
@Command(name = "explain", mixinStandardHelpOptions = true,
    header = "Why one request was slow: neighbours, slot wait, preemptions.",
    description = {
      "Why one request was slow, in words: its TPOT, TTFT and latency against the medians, the decode steps",
      "it shared with other requests' prefill and whose, its wait for a batch slot, its preemptions, failed",
      "launches. Joins the records with the launch log (pass both, or their directory); says how many of its",
      "launches were found, and flags launches whose members' shares do not add up to their GPU time. Reads",
      "rotated and gzipped files. Exit code 1 when the request is not found."})
public final class ExplainCommand extends LogCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "REQUEST_ID", description = "The request ID, exactly as logged.")
  String requestId = "";

  @Parameters(index = "1..*", paramLabel = "PATH", arity = "0..*",
      description = "Record logs and launch logs, files or directories (default: logs/).")
  List<Path> paths = new ArrayList<>();

  @Option(names = "--launches", description = "Also list each of its launches: phase, batch, what it did, times, its share,"
      + " who else prefilled.")
  boolean launches;

  @Option(names = "--build-report", paramLabel = "FILE", description = "The engine's build report (trtrace build"
      + " report JSON, built with detailed profiling verbosity): its recorded kernels are also shown by the engine"
      + " layer that ran them, matched by tactic name.")
  @Nullable Path buildReport;

  @Override
  public Integer call() throws Exception {
    // a file that is not a build report: BuildReport.read's message names it, exit code 2 (the CLI's handler)
    BuildReport report = buildReport == null ? null : BuildReports.read(buildReport);
    LaunchJoin j = LaunchJoin.read(requestId, files(paths), showProgress(), report);
    if (j.record == null) {
      err.println("trtrace explain: request " + Fmt.visible(requestId) + " not found (" + j.read.describe() + ")"
          + (j.launches.isEmpty() ? "" : "; " + j.launches.size() + " launch-log lines list it, but no record"));
      return 1;
    }
    ExplainText.print(out, new Explanation(j), launches);
    out.flush();
    if (j.recordsWithId > 1) {
      err.println("trtrace explain: " + j.recordsWithId + " records carry request ID " + Fmt.visible(requestId)
          + "; explained the last one read");
    }
    return 0;
  }
}
