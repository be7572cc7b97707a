package io.github.trtrace.examples.demo;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.core.InferenceTrace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The demo's {@link LaunchRecorder} through trtrace's record API: each request's share of its launches goes
 * on its record as {@code batch.*} attributes when it finishes, and every launch is one JSON line in a launch
 * log of its own ({@code logs/launches.log}: launch id, time, engine, phase mix, batch size, prefill tokens,
 * decode rows, CPU and wall ms, the members with their shares), joinable to the records by request ID.
 *
 * <p>The attributes: {@code batch.launches}, {@code batch.first_launch}, {@code batch.last_launch},
 * {@code batch.size_mean}, {@code batch.size_max}; {@code batch.compute_ms}, the request's share of its
 * launches' CPU time ({@code batch.share_method}: attention measured per request, the shared matrix work
 * split by rows), a labelled estimate; {@code batch.slot_wait_ms}; {@code batch.decode_steps},
 * {@code batch.decode_steps_with_prefill} (its decode steps that also ran another request's prefill), the
 * mean wall ms of its decode steps with and without such a prefill ({@code batch.decode_step_ms_with_prefill},
 * {@code batch.decode_step_ms_alone}); {@code batch.slowed_by}, up to {@value #NEIGHBOURS} neighbours whose
 * prefill shared its decode steps, most tokens first ({@code id:tokens} separated by spaces);
 * {@code batch.preemptions}, {@code batch.preempted_ms}.
 *
 * <pre>{@code
 * try (LaunchRecorder r = BatchRecorder.create(Path.of("logs/launches.log"))) { ... }
 * }</pre>
 */
final class BatchRecorder implements LaunchRecorder {
  static final String SHARE_METHOD = "cpu_time:attention_measured+rows";
  /** Neighbours named in {@code batch.slowed_by}. */
  static final int NEIGHBOURS = 3;
  /** Neighbours tracked per request before the least is dropped (bounded state per request). */
  private static final int TRACKED = 16;
  /** Members written per launch line. */
  static final int LOGGED_MEMBERS = 64;
  private static final ObjectMapper JSON = new ObjectMapper().disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

  /** What one request accumulated over its launches. */
  private static final class Acc {
    long launches;
    long firstLaunch = -1;
    long lastLaunch;
    long batchSum;
    int batchMax;
    long cpuNanos;
    long slotWaitNanos;
    long decodeSteps;
    long decodeStepsWithPrefill;
    long decodeNanosWithPrefill;
    long decodeNanosAlone;
    int preemptions;
    long preemptedNanos;
    final Map<String, Integer> neighbours = new HashMap<>();
  }

  private final Map<InferenceTrace, Acc> accs = Collections.synchronizedMap(new IdentityHashMap<>());
  private final @Nullable Writer log;

  private BatchRecorder(@Nullable Writer log) {
    this.log = log;
  }

  /** Records attributes and writes the launch log to {@code launchLog} (replaced). */
  static BatchRecorder create(Path launchLog) throws IOException {
    Files.deleteIfExists(launchLog);
    return new BatchRecorder(Files.newBufferedWriter(launchLog, StandardCharsets.UTF_8));
  }

  /** Records attributes only. */
  static BatchRecorder attributesOnly() {
    return new BatchRecorder(null);
  }

  private Acc acc(InferenceTrace t) {
    return accs.computeIfAbsent(t, k -> new Acc());
  }

  @Override
  public void launched(Launch l) {
    int size = l.members().size();
    int prefill = l.prefillTokens();
    for (Member m : l.members()) {
      Acc a = acc(m.trace());
      synchronized (a) {
        a.launches++;
        if (a.firstLaunch < 0) {
          a.firstLaunch = l.id();
        }
        a.lastLaunch = l.id();
        a.batchSum += size;
        a.batchMax = Math.max(a.batchMax, size);
        a.cpuNanos += m.cpuShareNanos();
        if (m.decodeRows() > 0) {
          a.decodeSteps++;
          if (prefill - m.prefillTokens() > 0) {
            a.decodeStepsWithPrefill++;
            a.decodeNanosWithPrefill += l.wallNanos();
            for (Member other : l.members()) {
              if (other != m && other.prefillTokens() > 0) {
                neighbour(a, other.trace().requestId(), other.prefillTokens());
              }
            }
          } else {
            a.decodeNanosAlone += l.wallNanos();
          }
        }
      }
    }
    if (log != null) {
      write(l, prefill);
    }
  }

  private static void neighbour(Acc a, String id, int tokens) {
    a.neighbours.merge(id, tokens, Integer::sum);
    if (a.neighbours.size() > TRACKED) {
      String least = Collections.min(a.neighbours.entrySet(), Map.Entry.comparingByValue()).getKey();
      a.neighbours.remove(least);
    }
  }

  private void write(Launch l, int prefill) {
    Map<String, Object> line = new java.util.LinkedHashMap<>();
    line.put("launch_id", l.id());
    line.put("timestamp", java.time.Instant.EPOCH.plus(l.startEpochMicros(), java.time.temporal.ChronoUnit.MICROS)
        .toString());
    line.put("engine", l.engine());
    int decode = l.decodeRows();
    line.put("phase", prefill > 0 && decode > 0 ? "mixed" : prefill > 0 ? "prefill" : "decode");
    line.put("batch_size", l.members().size());
    line.put("prefill_tokens", prefill);
    line.put("decode_rows", decode);
    line.put("cpu_ms", l.cpuNanos() / 1e6);
    line.put("wall_ms", l.wallNanos() / 1e6);
    line.put("share_method", SHARE_METHOD);
    line.put("members", l.members().stream().limit(LOGGED_MEMBERS).map(m -> {
      Map<String, Object> j = new java.util.LinkedHashMap<>();
      j.put("request_id", m.trace().requestId());
      j.put("prefill_tokens", m.prefillTokens());
      j.put("decode_rows", m.decodeRows());
      j.put("cpu_share_ms", m.cpuShareNanos() / 1e6);
      return j;
    }).toList());
    if (l.members().size() > LOGGED_MEMBERS) {
      line.put("members_left_out", l.members().size() - LOGGED_MEMBERS);
    }
    synchronized (this) {
      try {
        JSON.writeValue(log, line);
        log.write('\n');
      } catch (IOException e) {
        throw new UncheckedIOException("launch log", e);
      }
    }
  }

  @Override
  public void waited(InferenceTrace trace, long nanos) {
    Acc a = acc(trace);
    synchronized (a) {
      a.slotWaitNanos += nanos;
    }
  }

  @Override
  public void preempted(InferenceTrace trace, long lostNanos) {
    Acc a = acc(trace);
    synchronized (a) {
      a.preemptions++;
      a.preemptedNanos += lostNanos;
    }
  }

  @Override
  public void finished(InferenceTrace t) {
    Acc a = accs.remove(t);
    if (a == null) {
      return;
    }
    synchronized (a) {
      t.attribute("batch.launches", Long.toString(a.launches));
      t.attribute("batch.first_launch", Long.toString(a.firstLaunch));
      t.attribute("batch.last_launch", Long.toString(a.lastLaunch));
      t.attribute("batch.size_mean", fmt(a.launches == 0 ? 0 : (double) a.batchSum / a.launches));
      t.attribute("batch.size_max", Integer.toString(a.batchMax));
      t.attribute("batch.compute_ms", fmt(a.cpuNanos / 1e6));
      t.attribute("batch.share_method", SHARE_METHOD);
      t.attribute("batch.slot_wait_ms", fmt(a.slotWaitNanos / 1e6));
      t.attribute("batch.decode_steps", Long.toString(a.decodeSteps));
      t.attribute("batch.decode_steps_with_prefill", Long.toString(a.decodeStepsWithPrefill));
      if (a.decodeStepsWithPrefill > 0) {
        t.attribute("batch.decode_step_ms_with_prefill", fmt(a.decodeNanosWithPrefill / 1e6 / a.decodeStepsWithPrefill));
      }
      long alone = a.decodeSteps - a.decodeStepsWithPrefill;
      if (alone > 0) {
        t.attribute("batch.decode_step_ms_alone", fmt(a.decodeNanosAlone / 1e6 / alone));
      }
      if (!a.neighbours.isEmpty()) {
        t.attribute("batch.slowed_by", a.neighbours.entrySet().stream()
            .sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
            .limit(NEIGHBOURS).map(e -> e.getKey() + ":" + e.getValue()).collect(Collectors.joining(" ")));
      }
      t.attribute("batch.preemptions", Integer.toString(a.preemptions));
      t.attribute("batch.preempted_ms", fmt(a.preemptedNanos / 1e6));
    }
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }

  @Override
  public void close() {
    if (log != null) {
      synchronized (this) {
        try {
          log.close();
        } catch (IOException e) {
          throw new UncheckedIOException("launch log", e);
        }
      }
    }
  }
}
