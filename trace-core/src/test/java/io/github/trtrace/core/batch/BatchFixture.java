package io.github.trtrace.core.batch;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.core.sink.RecordSink;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/** A tracer on a hand-driven clock, its records in memory, and every closed launch copied. */
final class BatchFixture implements AutoCloseable {
  final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  final List<InferenceRecord> records = new CopyOnWriteArrayList<>();
  final List<Launch> launches = new CopyOnWriteArrayList<>();
  final InferenceTracer tracer;

  /** A closed launch as a listener saw it. */
  record Launch(long id, String phase, int batchSize, long prefillTokens, int decodeRows, double gpuMs,
      double hostMs, @Nullable String errorType, List<String> members, List<Double> shares) {
    double shareSum() {
      return shares.stream().mapToDouble(Double::doubleValue).sum();
    }
  }

  BatchFixture() {
    this(null, false);
  }

  BatchFixture(@Nullable Path launchLog, boolean garbageFree) {
    TracerFactory b = new TracerFactory()
        .sink(RecordSink.named("memory", records::addAll))
        .clocks(Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC), nanos::get)
        .garbageFree(garbageFree)
        .shutdownHook(false)
        .listener(new TraceListener() {
          @Override
          public Handle onStart(io.github.trtrace.core.InferenceTrace trace, long startEpochNanos) {
            return Handle.NOOP;
          }

          @Override
          public void onLaunch(SharedLaunch.Ended l, List<@Nullable Handle> members) {
            List<String> ids = new ArrayList<>();
            List<Double> shares = new ArrayList<>();
            for (int i = 0; i < l.batchSize(); i++) {
              ids.add(l.memberRequestId(i));
              shares.add(l.memberShareMs(i));
            }
            launches.add(new Launch(l.id(), l.phase().wireName(), l.batchSize(), l.prefillTokens(),
                l.decodeRows(), l.gpuMs(), l.hostMs(), l.errorType(), ids, shares));
          }
        });
    if (launchLog != null) {
      b.launchLog(launchLog);
    }
    tracer = b.build();
  }

  void advanceMs(double ms) {
    nanos.addAndGet((long) (ms * 1_000_000));
  }

  /** Flushes and returns the records by request ID. */
  Map<String, InferenceRecord> byId() {
    tracer.flush().join();
    Map<String, InferenceRecord> m = new ConcurrentHashMap<>();
    records.forEach(r -> m.put(r.requestId(), r));
    return m;
  }

  @Override
  public void close() {
    tracer.close();
  }
}
