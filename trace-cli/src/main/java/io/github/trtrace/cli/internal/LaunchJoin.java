package io.github.trtrace.cli.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One request's record joined with its launches, read in one pass over records and launch logs mixed in
 * any order: the request's record, every launch line that lists it as a member, the medians to compare
 * it with (successful requests' TPOT, TTFT and latency), and what the launch log covered. Memory: the
 * request's launches, and one number per launch whose member list was truncated.
 */
final class LaunchJoin {
  final String requestId;
  final LineReader.Summary read;
  /** The request's record (the last one when several carry its ID), null when absent. */
  final @Nullable JsonNode record;
  final @Nullable String recordAt;
  final int recordsWithId;
  /** The launches listing the request, by launch ID. */
  final List<LaunchLine> launches;
  /** Launch lines read (all requests). */
  final long launchLines;
  /** IDs of the launch lines whose member list was truncated (the request may be among the unlisted). */
  private final long[] truncated;
  private final int truncatedCount;
  final Hist tpot;
  final Hist ttft;
  final Hist latency;
  /** The kernels lines of the request's launches, by launch ID (those whose kernels were recorded). */
  final java.util.Map<Long, LaunchLine> kernels;
  /** The build report the kernels were joined with ({@code explain --build-report}), or null. */
  final @Nullable BuildReport report;

  private LaunchJoin(String requestId, LineReader.Summary read, @Nullable JsonNode record, @Nullable String recordAt,
      int recordsWithId, List<LaunchLine> launches, long launchLines, long[] truncated, int truncatedCount, Hist tpot,
      Hist ttft, Hist latency, java.util.Map<Long, LaunchLine> kernels, @Nullable BuildReport report) {
    this.kernels = kernels;
    this.report = report;
    this.requestId = requestId;
    this.read = read;
    this.record = record;
    this.recordAt = recordAt;
    this.recordsWithId = recordsWithId;
    this.launches = launches;
    this.launchLines = launchLines;
    this.truncated = truncated;
    this.truncatedCount = truncatedCount;
    this.tpot = tpot;
    this.ttft = ttft;
    this.latency = latency;
  }

  /**
   * Reads {@code files} in one pass for {@code requestId}; with a {@code report}, each kernels line is also joined
   * with its engine layers ({@link BuildReport#layersOfKernels}) before it is compacted (whether the report is of the
   * request's engine is judged by the reader of {@link #report}).
   */
  static LaunchJoin read(String requestId, List<Path> files, boolean progress, @Nullable BuildReport report)
      throws IOException {
    RecordParser records = new RecordParser();
    LaunchParser launchParser = new LaunchParser();
    ObjectMapper mapper = new ObjectMapper();
    Rec rec = new Rec();
    LaunchLine line = new LaunchLine();
    List<LaunchLine> mine = new ArrayList<>();
    Hist tpot = new Hist(3);
    Hist ttft = new Hist(3);
    Hist latency = new Hist(3);
    Object[] found = new Object[2];
    int[] withId = {0};
    long[] launchLines = {0};
    long[][] truncated = {new long[16]};
    int[] truncatedCount = {0};
    // kernels lines come after their launch line in one file, but files may be read in any order: all are kept
    // (compact: at most KEPT_KERNELS activities each) until the request's launches are known
    java.util.Map<Long, LaunchLine> kernelLines = new java.util.HashMap<>();
    LineReader.Summary read = LineReader.read(files, (buf, off, len, file, lineNo) -> {
      if (launchParser.isLaunch(buf, off, len)) {
        String why = launchParser.parse(buf, off, len, line);
        if (why != null) {
          return why;
        }
        if (line.kernelsLine) {
          kernelLines.put(line.id, compact(line, report));
          return LineReader.LAUNCH;
        }
        launchLines[0]++;
        if (line.indexOf(requestId) >= 0) {
          mine.add(line.copy());
        } else if (line.membersTruncated > 0) {
          if (truncatedCount[0] == truncated[0].length) {
            truncated[0] = java.util.Arrays.copyOf(truncated[0], truncatedCount[0] * 2);
          }
          truncated[0][truncatedCount[0]++] = line.id;
        }
        return LineReader.LAUNCH;
      }
      String why = records.parse(buf, off, len, rec);
      if (why != null) {
        return why;
      }
      if (Stats.SUCCESS.equals(rec.status)) {
        if (rec.tpotMs >= 0) {
          tpot.record(rec.tpotMs);
        }
        if (rec.ttftMs >= 0) {
          ttft.record(rec.ttftMs);
        }
        latency.record(rec.latencyMs);
      }
      if (requestId.equals(rec.requestId)) {
        withId[0]++;
        try {
          found[0] = mapper.readTree(new String(buf, off, len, StandardCharsets.UTF_8));
        } catch (IOException e) {
          return "invalid JSON: " + e.getMessage();
        }
        found[1] = file + ":" + lineNo;
      }
      return null;
    }, progress);
    mine.sort(Comparator.comparingLong(l -> l.id));
    java.util.Map<Long, LaunchLine> kernels = new java.util.TreeMap<>();
    for (LaunchLine l : mine) {
      LaunchLine k = kernelLines.get(l.id);
      if (k != null) {
        kernels.put(l.id, k);
      }
    }
    return new LaunchJoin(requestId, read, (JsonNode) found[0], (String) found[1], withId[0], mine, launchLines[0],
        truncated[0], truncatedCount[0], tpot, ttft, latency, kernels, report);
  }

  /** Activities of a kernels line kept per launch: its kernels aggregated by name, the slowest this many. */
  static final int KEPT_KERNELS = 32;

  /**
   * A copy of a kernels line with its kernels summed by name, the {@value #KEPT_KERNELS} slowest kept; with a build
   * report, the line's kernels (in their order, before they are summed) also summed by the engine layer that ran
   * each, the {@value #KEPT_KERNELS} largest kept.
   */
  static LaunchLine compact(LaunchLine line, @Nullable BuildReport report) {
    List<String> names = new ArrayList<>(); // the line's kernels, in their order
    List<Double> ms = new ArrayList<>();
    java.util.Map<String, Double> byName = new java.util.HashMap<>();
    double kernelMs = 0;
    for (int i = 0; i < line.kernels; i++) {
      if ("kernel".equals(line.kernelKinds[i])) {
        names.add(line.kernelNames[i]);
        ms.add(line.kernelMs[i]);
        byName.merge(line.kernelNames[i], line.kernelMs[i], Double::sum);
        kernelMs += line.kernelMs[i];
      }
    }
    LaunchLine c = new LaunchLine();
    c.kernelsLine = true;
    c.id = line.id;
    c.spanMs = line.spanMs;
    c.hostWaitMs = line.hostWaitMs;
    c.activitiesTruncated = line.activitiesTruncated;
    c.incomplete = line.incomplete;
    c.unmatchedCalls = line.unmatchedCalls;
    c.kernelMsSum = kernelMs;
    largest(byName, (name, t) -> c.addKernel("kernel", name, t));
    if (report != null) {
      List<BuildReport.@Nullable Layer> ran = report.layersOfKernels(names);
      java.util.Map<String, Double> byLayer = new java.util.HashMap<>();
      for (int i = 0; i < ran.size(); i++) {
        BuildReport.Layer l = ran.get(i);
        if (l != null) {
          byLayer.merge(l.name(), ms.get(i), Double::sum);
          c.kernelsMatched++;
        }
      }
      c.kernelsInLine = names.size();
      java.util.Map<String, Double> layerMs = new java.util.LinkedHashMap<>();
      largest(byLayer, layerMs::put);
      c.layerMs = layerMs;
    }
    return c;
  }

  /** The {@value #KEPT_KERNELS} largest entries of {@code ms}, most first (ties by name), to {@code into}. */
  private static void largest(java.util.Map<String, Double> ms, java.util.function.BiConsumer<String, Double> into) {
    ms.entrySet().stream()
        .sorted(java.util.Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(java.util.Map.Entry.comparingByKey()))
        .limit(KEPT_KERNELS).forEach(e -> into.accept(e.getKey(), e.getValue()));
  }

  /** Launches with IDs in {@code [first, last]} whose member lists were truncated and do not list this request. */
  long truncatedIn(long first, long last) {
    long n = 0;
    for (int i = 0; i < truncatedCount; i++) {
      if (truncated[i] >= first && truncated[i] <= last) {
        n++;
      }
    }
    return n;
  }
}
