package io.github.trtrace.cli.internal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The analysis behind {@code trtrace stats} and {@code trtrace report}, done once and kept: its figures as
 * values (the knee, the slow requests, the garbled outputs' input flag, the rejections around the arrival
 * peak, each with a request ID to look at), its text and its HTML. The commands use it; so does the
 * repository's demo, which prints its conclusions from the same figures it then prints as {@code stats}.
 * Not API (an {@code internal} package): may change without notice.
 *
 * <pre>{@code
 * LogAnalysis a = LogAnalysis.read(List.of(Path.of("logs/inference.log")));
 * if (a.knee().found()) {
 *   System.out.printf("knee at %.0f tokens%n", a.knee().tokens());
 * }
 * a.printStats(System.out);     // what 'trtrace stats' prints
 * a.writeHtml(Path.of("report.html"));
 * }</pre>
 */
public final class LogAnalysis {
  /** Slowest requests listed by {@code stats} (its {@code --top} default). */
  public static final int TOP = 10;

  /**
   * The knee of median compute time against input length.
   *
   * @param found whether a knee was found ({@link #summary} says why not otherwise)
   * @param tokens the knee in input tokens (NaN when none was fitted)
   * @param slopeBefore ms per input token below the knee
   * @param slopeAfter ms per input token above it
   * @param r2TwoSegments R² of the two-segment fit
   * @param r2OneLine R² of one straight line
   * @param buckets input-length buckets fitted
   * @param summary the fit in one sentence
   */
  public record KneeFit(boolean found, double tokens, double slopeBefore, double slopeAfter, double r2TwoSegments,
      double r2OneLine, int buckets, String summary) {}

  /**
   * Slow successful requests (latency at or above p{@value Findings#SLOW_PERCENTILE}).
   *
   * @param thresholdMs the latency from which a request counts as slow
   * @param count slow requests
   * @param aboveKnee of those, with more input tokens than the knee (0 without a knee)
   * @param queueBound of the others, those that waited longer in the queue than they computed
   * @param medianBelowKneeMs median latency at or below the knee (NaN without a knee)
   * @param medianAboveKneeMs median latency above it
   */
  public record Slow(double thresholdMs, long count, long aboveKnee, long queueBound, double medianBelowKneeMs,
      double medianAboveKneeMs) {}

  /**
   * One of the slowest requests.
   *
   * @param dominantStage the stage that took longest ({@code queue}, {@code infer}, ...; {@code -} if unknown)
   * @param queueMs time in the queue (NaN if unknown)
   * @param inputTokens -1 if unknown
   */
  public record Request(String requestId, String status, double latencyMs, double computeMs, double queueMs,
      long inputTokens, String dominantStage) {}

  /**
   * Flagged (garbled) outputs and the input flag most of them carried.
   *
   * @param outputFlagged records with output flags
   * @param inputFlag the input flag carried by the most of them (null when none carried one)
   * @param withInputFlag flagged outputs whose input had {@code inputFlag}
   * @param inputFlagRecords records with {@code inputFlag}
   * @param inputFlagRecordsFlagged of those, with a flagged output
   * @param example a request with {@code inputFlag} and a flagged output
   */
  public record Garbled(long outputFlagged, @Nullable String inputFlag, long withInputFlag, long inputFlagRecords,
      long inputFlagRecordsFlagged, @Nullable String example) {}

  /**
   * Rejected requests against the arrival rate.
   *
   * @param count records with status {@code rejected}
   * @param nearPeak of those, in the arrival-time bin with the most arrivals or a bin either side
   * @param peakArrivals arrivals in that bin
   * @param medianArrivals median arrivals per bin over the run
   * @param binSeconds the bins' width
   * @param peakOffsetSeconds the peak bin's start, from the first record
   * @param example the earliest rejected request (null when none)
   */
  public record Rejected(long count, long nearPeak, long peakArrivals, double medianArrivals, double binSeconds,
      double peakOffsetSeconds, @Nullable String example) {}

  private final List<Path> files;
  private final Analysis analysis;
  private final Findings findings;
  private final int kneeMinCount;

  private LogAnalysis(List<Path> files, Analysis analysis, int kneeMinCount) {
    this.files = files;
    this.analysis = analysis;
    this.findings = new Findings(analysis.stats, kneeMinCount);
    this.kneeMinCount = kneeMinCount;
  }

  /** Reads {@code paths} (files or directories, rotated and gzipped files too) as {@code trtrace stats} does. */
  public static LogAnalysis read(List<Path> paths) throws IOException {
    return read(LogCommand.files(paths), TOP, false, Findings.KNEE_MIN_COUNT);
  }

  static LogAnalysis read(List<Path> files, int top, boolean progress, int kneeMinCount) throws IOException {
    return new LogAnalysis(files, Analysis.of(files, top, progress), kneeMinCount);
  }

  /** Records read. */
  public long records() {
    return analysis.stats.records;
  }

  /** Records by status. */
  public Map<String, Long> statuses() {
    return Map.copyOf(analysis.stats.statusCounts);
  }

  /** Share of the summed latency spent in the queue (NaN when no record has stage times). */
  public double queueShare() {
    return analysis.stats.share(0);
  }

  /** The knee, as {@code stats} reports it. */
  public KneeFit knee() {
    Knee.Result k = findings.knee;
    return new KneeFit(k.found(), k.knee(), k.slopeBefore(), k.slopeAfter(), k.r2Two(), k.r2One(), k.points(),
        k.reason());
  }

  /**
   * The knee fit {@code stats} uses, over points of the caller's own ({@code tokens} ascending, one
   * {@code ms} figure each): for a measure of compute other than latency less queue, e.g. CPU time.
   */
  public static KneeFit kneeOf(double[] tokens, double[] ms) {
    if (tokens.length != ms.length) {
      throw new IllegalArgumentException("tokens and ms differ in length: " + tokens.length + ", " + ms.length);
    }
    Knee.Result k = Knee.fit(tokens, ms);
    return new KneeFit(k.found(), k.knee(), k.slopeBefore(), k.slopeAfter(), k.r2Two(), k.r2One(), k.points(),
        k.reason());
  }

  /** How many requests were slow, and why. */
  public Slow slow() {
    Findings f = findings;
    return new Slow(f.slowThresholdMs, f.slowCount, f.slowAboveKnee, f.slowQueueBound, f.medianBelowKnee,
        f.medianAboveKnee);
  }

  /** The {@value #TOP} slowest requests by latency, slowest first. */
  public List<Request> slowest() {
    return requests(analysis.stats.slowest());
  }

  /** The {@value #TOP} slowest successful requests by compute time (latency less queue), slowest first. */
  public List<Request> slowestByCompute() {
    return requests(analysis.stats.slowestByCompute());
  }

  private static List<Request> requests(List<Stats.Slow> slow) {
    return slow.stream().map(x -> new Request(x.requestId(), x.status(), x.latencyMs(), x.computeMs(), x.queueMs(),
        x.inputTokens(), x.dominantStage())).toList();
  }

  /** Flagged outputs and their inputs' flag. */
  public Garbled garbled() {
    Findings f = findings;
    return new Garbled(analysis.stats.outputFlagged, f.garbledFlag, f.garbledWithFlag, f.flagRecords,
        f.flagRecordsGarbled, f.garbledExample);
  }

  /** Rejections and the arrival peak. */
  public Rejected rejected() {
    Findings f = findings;
    Stats s = analysis.stats;
    double offset = s.time.isEmpty() ? 0 : Math.max(0, s.time.start(f.peakBin) - s.firstMicros) / 1e6;
    return new Rejected(f.rejected, f.rejectedNearPeak, f.peakArrivals, f.medianArrivals, s.time.width() / 1e6,
        offset, s.firstRejectedId);
  }

  /** The findings in sentences, as {@code stats} and {@code report} state them (the batch-level ones last). */
  public List<String> sentences() {
    List<String> l = new java.util.ArrayList<>(findings.sentences);
    l.addAll(analysis.batch.sentences());
    return List.copyOf(l);
  }

  /** The batch-level findings alone (empty when the logs have no launches nor batching fields). */
  public List<String> batchSentences() {
    return analysis.batch.sentences();
  }

  /** Prints what {@code trtrace stats} prints for these files. */
  public void printStats(PrintStream out) {
    StatsText.print(out, analysis.read, analysis.stats, findings, kneeMinCount, analysis.batch);
    out.flush();
  }

  void writeJson(PrintStream out) throws IOException {
    StatsJson.write(out, analysis.read, analysis.stats, findings, kneeMinCount, analysis.batch);
    out.flush();
  }

  /** What was read: lines, records, malformed and torn lines. */
  public String describeRead() {
    return analysis.read.describe();
  }

  boolean skippedLines() {
    return analysis.read.skippedAny();
  }

  /** Writes the {@code trtrace report} HTML page for these files to {@code html}. */
  public void writeHtml(Path html) throws IOException {
    writeHtml(html, null, false, null);
  }

  /**
   * The slowest request by TPOT among those that joined launches (at or above p{@value BatchStats#SLOW_PERCENTILE}),
   * or null when no record has launches and TPOT: the one the report shows on a timeline by default.
   */
  public @Nullable String slowestBatchedRequest() {
    return analysis.batch.slowestRequest();
  }

  /**
   * Writes the report; with {@code request}, a section on that request ({@code explain}'s sentence, its launches on a
   * timeline with its neighbours), read in a second pass over the files, its kernels also joined with {@code
   * report}'s engine layers when one is given. Returns whether the request was found.
   */
  boolean writeHtml(Path html, @Nullable String request, boolean progress,
      io.github.trtrace.tensorrt.model.build.@Nullable BuildReport report) throws IOException {
    String sources = files.size() == 1 ? files.get(0).toString() : files.size() + " files (" + files.get(0) + ", ...)";
    Explanation explained = null;
    if (request != null) {
      LaunchJoin j = LaunchJoin.read(request, files, progress, report);
      explained = j.record == null ? null : new Explanation(j);
    }
    String page = HtmlReport.render(analysis.read, analysis.stats, findings, sources, analysis.batch, explained);
    Path parent = html.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(html, page, StandardCharsets.UTF_8);
    return explained != null;
  }
}
