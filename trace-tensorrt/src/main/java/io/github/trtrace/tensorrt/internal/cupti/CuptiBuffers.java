package io.github.trtrace.tensorrt.internal.cupti;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ObjIntConsumer;
import org.bytedeco.cuda.cudart.CUctx_st;
import org.bytedeco.cuda.cupti.CUpti_Activity;
import org.bytedeco.cuda.cupti.CUpti_BuffersCallbackCompleteFunc;
import org.bytedeco.cuda.cupti.CUpti_BuffersCallbackRequestFunc;
import org.bytedeco.cuda.global.cupti;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.javacpp.SizeTPointer;

/**
 * CUPTI's activity buffers for {@link CuptiRecorder}: gives CUPTI a buffer when it asks (reused, bounded: beyond
 * {@value #MAX_BUFFERS}, none, and CUPTI drops and counts; {@link BufferPool}), and copies each completed buffer's
 * records into {@link ActivityRow}s on a bounded queue (drops counted) before giving it back, on whatever thread
 * CUPTI calls back on. Never throws into CUPTI: a failure is said once and counted.
 */
final class CuptiBuffers {
  static final int BUFFER_BYTES = 1 << 20;
  static final int MAX_BUFFERS = 32;
  static final int WARM_BUFFERS = 4;
  static final int ROW_QUEUE = 64 * 1024;

  private final CuptiRecords records;
  private final Once warned;
  private final ObjIntConsumer<String> check;
  private final ArrayBlockingQueue<ActivityRow> rows = new ArrayBlockingQueue<>(ROW_QUEUE);
  private final Map<Long, BytePointer> buffers = new ConcurrentHashMap<>();
  private final BufferPool<BytePointer> pool;
  private final LongAdder queueDropped = new LongAdder();
  private final LongAdder cuptiDropped = new LongAdder();
  private final RequestBuffer request = new RequestBuffer();
  private final BufferCompleted completed = new BufferCompleted();

  /**
   * @param check a CUPTI call's name and result code: counts and says a failure
   */
  CuptiBuffers(CuptiRecords records, Once warned, ObjIntConsumer<String> check) {
    this.records = records;
    this.warned = warned;
    this.check = check;
    this.pool = new BufferPool<>(MAX_BUFFERS, !"false".equals(System.getProperty("trtrace.cupti.reuseBuffers")),
        CuptiBuffers::newBuffer, BytePointer::close);
  }

  /** A buffer for CUPTI: malloc (16-byte aligned; CUPTI needs 8), every page touched so CUPTI's writes do not fault. */
  private static BytePointer newBuffer() {
    BytePointer b = new BytePointer((long) BUFFER_BYTES);
    b.fill(0);
    return b;
  }

  /** Makes the first buffers ahead of the first recorded launch (off the launch path). */
  void warm() {
    pool.warm(WARM_BUFFERS);
  }

  /** CUPTI's buffer requests so far: how many, how many reused, how long they took. */
  BufferStats bufferStats() {
    return pool.stats();
  }

  /** The callback that gives CUPTI a buffer (keep a reference while CUPTI runs). */
  CUpti_BuffersCallbackRequestFunc request() {
    return request;
  }

  /** The callback that takes a completed buffer back (keep a reference while CUPTI runs). */
  CUpti_BuffersCallbackCompleteFunc completed() {
    return completed;
  }

  /** Moves the rows copied so far to {@code into}. */
  void drainTo(Collection<ActivityRow> into) {
    rows.drainTo(into);
  }

  /** Rows dropped because the queue was full. */
  long queueDropped() {
    return queueDropped.sum();
  }

  /** Records CUPTI dropped ({@code cuptiActivityGetNumDroppedRecords}). */
  long cuptiDropped() {
    return cuptiDropped.sum();
  }

  /**
   * Gives CUPTI a buffer (1 MiB, reused: {@link BufferPool}; at most {@value #MAX_BUFFERS} exist; beyond, none: CUPTI
   * drops and counts).
   */
  private final class RequestBuffer extends CUpti_BuffersCallbackRequestFunc {
    @Override
    public void call(PointerPointer buffer, SizeTPointer size, SizeTPointer maxNumRecords) {
      try {
        maxNumRecords.put(0L, 0L);
        BytePointer b = pool.take();
        if (b == null) {
          buffer.put(0L, (Pointer) null);
          size.put(0L, 0L);
          return;
        }
        buffers.put(b.address(), b);
        buffer.put(0L, b);
        size.put(0L, (long) BUFFER_BYTES);
      } catch (Throwable e) { // never throw into CUPTI
        warned.warn("request", "trtrace: CUPTI buffer request failed once: {}", e.toString());
        size.put(0L, 0L);
      }
    }
  }

  /** Copies a completed buffer's records into rows, counts CUPTI's drops, gives the buffer back to the pool. */
  private final class BufferCompleted extends CUpti_BuffersCallbackCompleteFunc {
    @Override
    public void call(CUctx_st context, int streamId, BytePointer buffer, long size, long validSize) {
      try {
        if (buffer != null && validSize > 0) {
          parse(buffer, validSize);
        }
        try (SizeTPointer dropped = new SizeTPointer(1)) {
          int rc = cupti.cuptiActivityGetNumDroppedRecords(context, streamId, dropped);
          if (rc == cupti.CUPTI_SUCCESS) {
            long n = dropped.get(0);
            if (n > 0) {
              cuptiDropped.add(n);
              warned.warn("cuptiDropped", "trtrace: CUPTI dropped {} activity records (no buffer in time; said once)", n);
            }
          } else {
            check.accept("cuptiActivityGetNumDroppedRecords", rc);
          }
        }
      } catch (Throwable e) { // never throw into CUPTI
        warned.warn("complete", "trtrace: reading a CUPTI buffer failed once: {}", e.toString());
      } finally {
        if (buffer != null) {
          BytePointer b = buffers.remove(buffer.address());
          if (b != null) {
            pool.give(b);
          }
        }
      }
    }

    private void parse(BytePointer buffer, long validSize) throws Throwable {
      CUpti_Activity record = new CUpti_Activity((Pointer) null);
      while (true) {
        int rc = cupti.cuptiActivityGetNextRecord(buffer, validSize, record);
        if (rc == cupti.CUPTI_ERROR_MAX_LIMIT_REACHED) {
          return;
        }
        if (rc != cupti.CUPTI_SUCCESS) {
          check.accept("cuptiActivityGetNextRecord", rc);
          return;
        }
        ActivityRow row = records.read(record.kind(), record);
        if (row != null && !rows.offer(row)) {
          queueDropped.increment();
        }
      }
    }
  }
}
