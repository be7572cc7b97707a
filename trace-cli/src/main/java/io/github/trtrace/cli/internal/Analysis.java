package io.github.trtrace.cli.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Reads logs into {@link Stats}: one pass, one reused record. */
final class Analysis {
  final LineReader.Summary read;
  final Stats stats;

  private Analysis(LineReader.Summary read, Stats stats) {
    this.read = read;
    this.stats = stats;
  }

  static Analysis of(List<Path> files, int topN, boolean progress) throws IOException {
    Stats stats = new Stats(topN);
    RecordParser parser = new RecordParser();
    Rec rec = new Rec();
    LineReader.Summary read = LineReader.read(files, (buf, off, len, file, lineNo) -> {
      String why = parser.parse(buf, off, len, rec);
      if (why == null) {
        stats.add(rec);
      }
      return why;
    }, progress);
    return new Analysis(read, stats);
  }
}
