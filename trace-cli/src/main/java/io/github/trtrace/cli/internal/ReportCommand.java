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

/** {@code trtrace report --html out.html [paths...]}. */
@Command(name = "report", mixinStandardHelpOptions = true,
    header = "One self-contained HTML report: stats' findings, with charts.",
    description = {
      "One self-contained HTML file (inline SVG, no scripts, no network): findings, latency vs input",
      "tokens with the knee marked, latency histogram, stage breakdown, queueing over time, slowest",
      "requests, errors and flags; with launch logs, the batching findings and one request's launches on a",
      "timeline beside its neighbours."})
public final class ReportCommand extends LogCommand implements Callable<Integer> {
  @Option(names = "--html", required = true, paramLabel = "FILE", description = "The HTML file to write.")
  Path html = Path.of("report.html");

  @Parameters(paramLabel = "PATH", arity = "0..*", description = "Log files or directories (default: logs/).")
  List<Path> paths = new ArrayList<>();

  @Option(names = "--top", defaultValue = "20", paramLabel = "N", description = "Slowest requests listed (default: ${DEFAULT-VALUE}).")
  int top;

  @Option(names = "--knee-min-count", defaultValue = "" + Findings.KNEE_MIN_COUNT, paramLabel = "N",
      description = "Requests each point of the knee fit holds: an input-token bucket with fewer is merged with its"
          + " neighbours (default: ${DEFAULT-VALUE}).")
  int kneeMinCount;

  @Option(names = "--request", paramLabel = "REQUEST_ID",
      description = "The request shown with its launches on a timeline beside its neighbours, with the explain sentence"
          + " (default: the slowest by TPOT among requests that joined launches; none without launches). Exit 1"
          + " when the request named here is not in the logs (the page is written without its timeline).")
  @Nullable String request;

  @Option(names = "--build-report", paramLabel = "FILE", description = "The engine's build report (built with detailed"
      + " profiling verbosity): the request's recorded kernels are also drawn by the engine layer that ran them.")
  @Nullable Path buildReport;

  @Override
  public Integer call() throws Exception {
    List<Path> files = files(paths);
    LogAnalysis a = LogAnalysis.read(files, top, showProgress(), Findings.kneeMinCount(kneeMinCount));
    String shown = request != null ? request : a.slowestBatchedRequest();
    // a file that is not a build report: BuildReport.read's message names it, exit code 2 (the CLI's handler)
    BuildReport report = buildReport == null ? null : BuildReports.read(buildReport);
    boolean found = a.writeHtml(html, shown, showProgress(), report);
    out.println("trtrace report: wrote " + html + " (" + a.describeRead() + ")");
    if (shown != null) {
      out.println("  request " + Fmt.visible(shown) + (found ? ": its launches on a timeline" : ": not found, no timeline"));
    }
    for (String s : a.sentences()) {
      out.println("  * " + s);
    }
    out.flush();
    // a request the user named and the logs lack: the page is there, but not what was asked for (as find, explain)
    return request != null && !found ? 1 : 0;
  }
}
