package io.github.trtrace.core.sink;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.internal.json.RecordJson;

/**
 * Encodes one record at a time into a UTF-8 JSON line held in reused arrays ({@link #bytes()}, {@link
 * #length()}): the layout of {@link JsonLinesFileSink}, which knows nothing of files. A record is
 * written as UTF-8 bytes directly ({@link RecordJson.Utf8Lines}); a line encoded elsewhere as text
 * (the launch log's) is converted. Not thread-safe.
 */
final class JsonLineEncoder {
  private final RecordJson.Utf8Lines records = new RecordJson.Utf8Lines();
  private final StringBuilder text = new StringBuilder(1024);
  private char[] chars = new char[2048];
  private byte[] line = new byte[4096];
  /** Length of {@link #line} after {@link #encodeUtf8()}. */
  private int lineLength;
  /** Whether the last line encoded is a record's (in {@link #records}) or a text line's (in {@link #line}). */
  private boolean record;

  /** Encodes {@code r} as one line, line feed included. */
  void encode(InferenceRecord r) {
    records.encode(r);
    record = true;
  }

  /** Encodes a line encoded elsewhere as JSON (the launch log's), line feed included. */
  void encode(CharSequence line) {
    text.setLength(0);
    text.append(line);
    encodeUtf8();
    record = false;
  }

  /** The encoded line; valid up to {@link #length()} until the next {@code encode}. */
  byte[] bytes() {
    return record ? records.bytes() : line;
  }

  int length() {
    return record ? records.length() : lineLength;
  }

  /**
   * UTF-8 of {@link #text} into {@link #line}. RecordJson never emits unpaired surrogates. The chars
   * are copied out in bulk first ({@code getChars}): a loop over an array costs a fraction of one
   * {@code charAt} call a char, and the ASCII run, almost all of a record, is a plain narrowing copy.
   */
  private void encodeUtf8() {
    int n = text.length();
    if (chars.length < n) {
      chars = new char[Math.max(n, chars.length * 2)];
    }
    if (line.length < n * 3) {
      line = new byte[Math.max(n * 3, line.length * 2)];
    }
    char[] cs = chars;
    text.getChars(0, n, cs, 0);
    byte[] b = line;
    int i = 0;
    while (i < n && cs[i] < 0x80) {
      b[i] = (byte) cs[i];
      i++;
    }
    int j = i;
    for (; i < n; i++) {
      char c = cs[i];
      if (c < 0x80) {
        b[j++] = (byte) c;
      } else if (c < 0x800) {
        b[j++] = (byte) (0xc0 | (c >> 6));
        b[j++] = (byte) (0x80 | (c & 0x3f));
      } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(cs[i + 1])) {
        int cp = Character.toCodePoint(c, cs[++i]);
        b[j++] = (byte) (0xf0 | (cp >> 18));
        b[j++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
        b[j++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
        b[j++] = (byte) (0x80 | (cp & 0x3f));
      } else {
        if (Character.isSurrogate(c)) {
          c = '\ufffd';
        }
        b[j++] = (byte) (0xe0 | (c >> 12));
        b[j++] = (byte) (0x80 | ((c >> 6) & 0x3f));
        b[j++] = (byte) (0x80 | (c & 0x3f));
      }
    }
    lineLength = j;
  }
}
