package io.github.trtrace.core.sink;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;

/**
 * Appends whole lines to the log file through a 64 KiB buffer, and forces them to the device on
 * {@link #flush} when {@code fsync} is on: the file's manager, which knows nothing of records or
 * rotation. A failed write cuts the file back to its last complete line; a file found ending with a
 * torn line (a crash) gets a line feed before the next line. Counts the lines written and those a
 * failure lost ({@link #takePendingLost()}). Not thread-safe.
 */
final class LineFileWriter {
  private static final int BUFFER_BYTES = 64 * 1024;
  private static final byte LF = '\n';

  private final Path file;
  private final ChannelOpener opener;
  private final boolean fsync;

  private final byte[] buffer = new byte[BUFFER_BYTES];
  private int bufferLength;
  private int bufferLines;
  private boolean bufferStartsWithSeparator;

  private @Nullable FileChannel channel;
  /** Bytes in the file, all of them complete lines (or the line feed ending a torn one). */
  private long fileBytes;
  /** The file ends with a torn line: write a line feed before the next record. */
  private boolean needsLineFeed;
  private long linesWritten;
  /** Lines dropped by the failure being reported, not yet included in an exception. */
  private long pendingLost;

  LineFileWriter(Path file, ChannelOpener opener, boolean fsync) {
    this.file = file;
    this.opener = opener;
    this.fsync = fsync;
  }

  /** Lines whose file write returned. */
  long linesWritten() {
    return linesWritten;
  }

  /** Lines lost since the last call, and resets the count. */
  long takePendingLost() {
    long lost = pendingLost;
    pendingLost = 0;
    return lost;
  }

  /** What the file would hold if the buffer were written now. */
  long pendingBytes() {
    return fileBytes + bufferLength + (needsLineFeed ? 1 : 0);
  }

  /** Puts one complete line into the buffer (after a separating line feed if needed), writing as needed. */
  void append(byte[] line, int lineLength) throws IOException {
    if (needsLineFeed) {
      if (bufferLength == buffer.length) {
        writeBuffer();
      }
      if (bufferLength == 0) {
        bufferStartsWithSeparator = true;
      }
      buffer[bufferLength++] = LF;
      needsLineFeed = false;
    }
    if (lineLength > buffer.length - bufferLength) {
      writeBuffer();
    }
    if (lineLength > buffer.length) {
      // counted here, not by writeLines: on failure the sink counts this record as not written
      writeLines(line, lineLength, 0, false);
      linesWritten++;
    } else {
      System.arraycopy(line, 0, buffer, bufferLength, lineLength);
      bufferLength += lineLength;
      bufferLines++;
    }
  }

  /** Writes buffered lines to the file, and forces them to the device when fsync is on. */
  void flush() throws IOException {
    writeBuffer();
    if (fsync && channel != null) {
      channel.force(false);
    }
  }

  /**
   * The last flush before {@link #closeChannel()}: when the file could not be opened, the buffered
   * lines are counted lost and an error is thrown.
   */
  void flushForClose() throws IOException {
    if (channel != null) {
      flush();
    } else if (bufferLines > 0) {
      pendingLost += bufferLines; // no file to write them to (it could not be opened)
      bufferLength = 0;
      bufferLines = 0;
      throw new IOException("the log file is not open");
    }
  }

  void writeBuffer() throws IOException {
    if (bufferLength == 0) {
      return;
    }
    int length = bufferLength;
    int lines = bufferLines;
    boolean separator = bufferStartsWithSeparator;
    bufferLength = 0;
    bufferLines = 0;
    bufferStartsWithSeparator = false;
    writeLines(buffer, length, lines, separator);
  }

  /**
   * Writes {@code length} bytes holding {@code lines} complete lines (counted here), after a
   * separating line feed if {@code separator}. On failure the file is cut back to its last complete line, lost lines go
   * to {@link #pendingLost}, and the error is thrown.
   */
  private void writeLines(byte[] bytes, int length, int lines, boolean separator)
      throws IOException {
    FileChannel ch;
    long start;
    try {
      ch = ensureOpen();
      start = ch.size();
    } catch (IOException e) {
      pendingLost += lines;
      needsLineFeed |= separator;
      throw e;
    }
    ByteBuffer bb = ByteBuffer.wrap(bytes, 0, length);
    try {
      while (bb.hasRemaining()) {
        ch.write(bb);
      }
    } catch (IOException e) {
      int written = bb.position();
      int keep = 0;
      int keptLines = separator ? -1 : 0;
      for (int k = 0; k < written; k++) {
        if (bytes[k] == LF) {
          keep = k + 1;
          keptLines++;
        }
      }
      keptLines = Math.max(0, Math.min(keptLines, lines));
      if (separator && keep == 0) {
        needsLineFeed = true; // the torn line before this write still ends the file
      }
      fileBytes = start + keep;
      if (written > keep) {
        try {
          ch.truncate(start + keep);
        } catch (IOException t) {
          e.addSuppressed(t);
          // the torn part stays: make sure the next record starts on a line of its own
          needsLineFeed = true;
          fileBytes = start + written;
        }
      }
      linesWritten += keptLines;
      pendingLost += lines - keptLines;
      throw e;
    }
    fileBytes = start + length;
    linesWritten += lines;
  }

  FileChannel ensureOpen() throws IOException {
    FileChannel ch = channel;
    if (ch == null) {
      ch = open();
    }
    return ch;
  }

  /** Opens the file after a rotation: whether it ends with a torn line is looked at anew. */
  void reopen() throws IOException {
    needsLineFeed = false; // re-detected for the file now opened
    open();
  }

  FileChannel open() throws IOException {
    FileChannel ch = opener.open(file);
    try {
      long size = ch.size();
      fileBytes = size;
      if (size > 0 && lastByte(size) != LF) {
        needsLineFeed = true;
      }
    } catch (IOException e) {
      ch.close();
      throw e;
    }
    channel = ch;
    return ch;
  }

  /** The byte at {@code size - 1}; an append-only channel cannot read, so this opens another. */
  private int lastByte(long size) throws IOException {
    try (FileChannel reader = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer last = ByteBuffer.allocate(1);
      if (reader.read(last, size - 1) != 1) {
        return -1;
      }
      return last.get(0);
    }
  }

  /** Before the file is renamed (the buffer already written): forces it when fsync is on, closes it. */
  void closeForRotation() throws IOException {
    FileChannel ch = channel;
    channel = null;
    if (ch != null) {
      try {
        if (fsync) {
          ch.force(false);
        }
      } finally {
        ch.close();
      }
    }
  }

  /** Closes the file, without flushing. */
  void closeChannel() throws IOException {
    FileChannel ch = channel;
    channel = null;
    if (ch != null) {
      ch.close();
    }
  }
}
