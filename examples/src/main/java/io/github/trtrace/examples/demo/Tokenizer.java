package io.github.trtrace.examples.demo;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A word-level tokenizer with byte fallback, the shape of a production BPE vocabulary reduced to whole
 * words: a known word is one token, anything else (unknown words, punctuation, control and format
 * characters) becomes one token per UTF-8 byte. Decoding is streaming, one token at a time, through a
 * {@link Session} that also did the encoding (as streaming detokenizers keep per-request state).
 *
 * <p><b>The defect</b> (deliberate, and the kind found in the field): the session tracks bidirectional
 * embedding levels while encoding (U+202A..U+202E and U+2066..U+2068 push, U+202C and U+2069 pop), so that
 * it can "render" right-to-left overrides. The level is never reset when encoding ends. An input with an
 * unbalanced push (a U+202E without its U+202C, say) leaves the level above zero, and the streaming decoder
 * then applies the override to the <em>output</em>: it writes the override mark and the piece's UTF-8 bytes
 * in reverse order (multi-byte characters turn into U+FFFD) into a pending buffer, and, because its flush
 * never clears that buffer, streams the first such piece again for every later token: the answer is one
 * garbled word repeated. Balanced inputs come out clean. Nothing here looks at the text to decide to garble it: it is the state machine.
 */
final class Tokenizer {
  static final int BYTE_TOKENS = 256;
  /** End of sequence: the model may stop here. */
  static final int EOS = BYTE_TOKENS;
  private static final int FIRST_WORD = BYTE_TOKENS + 1;

  private final List<String> words;
  private final Map<String, Integer> ids = new HashMap<>();

  Tokenizer(List<String> vocabulary) {
    this.words = List.copyOf(vocabulary);
    for (int i = 0; i < words.size(); i++) {
      ids.putIfAbsent(words.get(i), FIRST_WORD + i);
    }
  }

  /** The demo's vocabulary. */
  static Tokenizer standard() {
    return new Tokenizer(Words.VOCABULARY);
  }

  int vocabularySize() {
    return FIRST_WORD + words.size();
  }

  /** Token IDs the model may generate: end of sequence and every word. */
  int[] outputTokens() {
    int[] out = new int[words.size() + 1];
    out[0] = EOS;
    for (int i = 0; i < words.size(); i++) {
      out[i + 1] = FIRST_WORD + i;
    }
    return out;
  }

  Session session() {
    return new Session();
  }

  /** Per-request state: encode once, then decode the generated tokens one by one. */
  final class Session {
    private int embeddingLevel; // the defect: never reset after encode()
    private int pushMark = '\u202E';
    private final StringBuilder pending = new StringBuilder();
    private boolean started;

    int[] encode(String text) {
      int[] out = new int[Math.max(16, text.length() / 3)];
      int n = 0;
      int i = 0;
      while (i < text.length()) {
        int cp = text.codePointAt(i);
        if (Character.isWhitespace(cp)) {
          i += Character.charCount(cp);
          continue;
        }
        int end = i;
        while (end < text.length()) {
          int c = text.codePointAt(end);
          if (!Character.isLetterOrDigit(c) && c != '\'') {
            break;
          }
          end += Character.charCount(c);
        }
        if (end == i) { // one symbol: punctuation, control or format character
          end = i + Character.charCount(cp);
          track(cp);
        }
        String piece = text.substring(i, end);
        Integer id = ids.get(piece.toLowerCase(Locale.ROOT));
        if (id != null) {
          out = ensure(out, n + 1);
          out[n++] = id;
        } else {
          byte[] bytes = piece.getBytes(StandardCharsets.UTF_8);
          out = ensure(out, n + bytes.length);
          for (byte b : bytes) {
            out[n++] = b & 0xFF;
          }
        }
        i = end;
      }
      return Arrays.copyOf(out, n);
    }

    private void track(int cp) {
      if ((cp >= 0x202A && cp <= 0x202E && cp != 0x202C) || (cp >= 0x2066 && cp <= 0x2068)) {
        embeddingLevel++;
        pushMark = cp;
      } else if ((cp == 0x202C || cp == 0x2069) && embeddingLevel > 0) {
        embeddingLevel--;
      }
    }

    /** The text of one generated token, as streamed to the client. */
    String decode(int token) {
      if (token == EOS) {
        return "";
      }
      String piece = token < BYTE_TOKENS ? String.valueOf((char) token)
          : (started ? " " : "") + words.get(token - FIRST_WORD);
      started = true;
      if (embeddingLevel == 0) {
        return piece;
      }
      // "Render" the override the encoder left open: the mark, then the piece's bytes in visual order.
      byte[] b = piece.getBytes(StandardCharsets.UTF_8);
      for (int i = 0, j = b.length - 1; i < j; i++, j--) {
        byte t = b[i];
        b[i] = b[j];
        b[j] = t;
      }
      String rendered = new String(Character.toChars(pushMark)) + utf8(b);
      // The rendered piece waits in the pending buffer for the override to close; the flush below never
      // clears it, so every later token repeats the first piece instead of its own.
      if (pending.length() == 0) {
        pending.append(rendered);
      }
      return pending.toString();
    }
  }

  /** Decodes bytes as UTF-8, replacing invalid sequences with U+FFFD as a lenient client would. */
  static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalStateException(e); // REPLACE never throws
    }
  }

  private static int[] ensure(int[] a, int size) {
    return size <= a.length ? a : Arrays.copyOf(a, Math.max(size, a.length * 2));
  }
}
