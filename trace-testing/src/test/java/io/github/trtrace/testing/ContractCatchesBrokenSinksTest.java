package io.github.trtrace.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.sink.RecordSink;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The contract is worth running only if it fails a sink that would misbehave behind the dispatcher: each
 * broken sink here passes the write-and-read-back checks but breaks one rule of {@link RecordSink}.
 */
class ContractCatchesBrokenSinksTest {

  enum Flaw {
    NONE,
    /** flush writes the buffer but keeps it; close writes it again (the dispatcher calls flush, then close) */
    WRITES_AGAIN_ON_CLOSE,
    /** buffers, but its delivery() never counts what reached the destination */
    DELIVERY_NEVER_COUNTS,
    /** state set up in a thread local by the constructor: only the creating thread can write */
    BOUND_TO_THE_CREATING_THREAD
  }

  /** A buffering sink, correct unless given a flaw. Its destination is {@link #store}. */
  static final class BufferingSink implements RecordSink {
    final List<String> store = new ArrayList<>();
    private final List<String> buffer = new ArrayList<>();
    private final ThreadLocal<List<String>> threadBuffer = new ThreadLocal<>();
    private final Flaw flaw;
    private long written;

    BufferingSink(Flaw flaw) {
      this.flaw = flaw;
      threadBuffer.set(buffer);
    }

    @Override
    public String name() {
      return "buffering:" + flaw;
    }

    @Override
    public void write(List<InferenceRecord> batch) {
      List<String> b = flaw == Flaw.BOUND_TO_THE_CREATING_THREAD ? threadBuffer.get() : buffer;
      for (InferenceRecord r : batch) {
        b.add(r.requestId()); // NullPointerException on another thread for BOUND_TO_THE_CREATING_THREAD
      }
    }

    @Override
    public void flush() {
      store.addAll(buffer);
      if (flaw != Flaw.DELIVERY_NEVER_COUNTS) {
        written += buffer.size();
      }
      if (flaw != Flaw.WRITES_AGAIN_ON_CLOSE) {
        buffer.clear();
      }
    }

    @Override
    public @Nullable Delivery delivery() {
      return new Delivery(written, 0);
    }

    @Override
    public void close() {
      flush();
    }
  }

  /** The names of the contract's tests that fail for sinks of this flaw. */
  private static List<String> failingContractTests(Flaw flaw) throws Exception {
    RecordSinkContractTest contract = new RecordSinkContractTest() {
      @Override
      protected RecordSink newSink() {
        return new BufferingSink(flaw);
      }

      @Override
      protected List<String> writtenRequestIds(RecordSink sink) {
        return List.copyOf(((BufferingSink) sink).store);
      }
    };
    List<String> failed = new ArrayList<>();
    for (Method m : RecordSinkContractTest.class.getMethods()) {
      if (m.isAnnotationPresent(Test.class)) {
        try {
          m.invoke(contract);
        } catch (InvocationTargetException e) {
          failed.add(m.getName() + ": " + e.getCause());
        }
      }
    }
    return failed;
  }

  @Test
  void aCorrectBufferingSinkPassesTheContract() throws Exception {
    assertThat(failingContractTests(Flaw.NONE)).isEmpty();
  }

  @Test
  void aSinkThatWritesItsBufferAgainOnCloseFailsTheContract() throws Exception {
    assertThat(failingContractTests(Flaw.WRITES_AGAIN_ON_CLOSE)).isNotEmpty();
  }

  @Test
  void aSinkWhoseDeliveryNeverCountsFailsTheContract() throws Exception {
    assertThat(failingContractTests(Flaw.DELIVERY_NEVER_COUNTS)).isNotEmpty();
  }

  @Test
  void aSinkThatOnlyWorksOnTheThreadThatBuiltItFailsTheContract() throws Exception {
    assertThat(failingContractTests(Flaw.BOUND_TO_THE_CREATING_THREAD)).isNotEmpty();
  }
}
