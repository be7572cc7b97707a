package io.github.trtrace.cli.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Reads logs into {@link Stats} (records) and {@link BatchStats} (launch lines, batching fields): one pass, reused lines. */
final class Analysis {
  final LineReader.Summary read;
  final Stats stats;
  final BatchStats batch;

  private Analysis(LineReader.Summary read, Stats stats, BatchStats batch) {
    this.read = read;
    this.stats = stats;
    this.batch = batch;
  }

  static Analysis of(List<Path> files, int topN, boolean progress) throws IOException {
    Stats stats = new Stats(topN);
    RecordParser parser = new RecordParser();
    Rec rec = new Rec();
    BatchStats batch = new BatchStats();
    LaunchParser launches = new LaunchParser();
    LaunchLine launch = new LaunchLine();
    LineReader.Summary read = LineReader.read(files, (buf, off, len, file, lineNo) -> {
      if (launches.isLaunch(buf, off, len)) {
        String why = launches.parse(buf, off, len, launch);
        if (why != null) {
          return why;
        }
        if (launch.kernelsLine) {
          batch.addKernels(launch);
        } else {
          batch.add(launch);
        }
        return LineReader.LAUNCH;
      }
      String why = parser.parse(buf, off, len, rec);
      if (why == null) {
        stats.add(rec);
        batch.add(rec);
      }
      return why;
    }, progress);
    return new Analysis(read, stats, batch);
  }
}
