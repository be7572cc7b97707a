package io.github.trtrace.tensorrt.internal.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BufferPoolTest {
  private final AtomicInteger made = new AtomicInteger();
  private final List<Object> freed = new ArrayList<>();

  private BufferPool<Object> pool(int max, boolean reuse) {
    return new BufferPool<>(max, reuse, () -> "buffer-" + made.incrementAndGet(), freed::add);
  }

  @Test
  void aBufferGivenBackIsTheOneTheNextRequestGets() {
    BufferPool<Object> p = pool(4, true);
    Object first = p.take();
    p.give(first);
    assertThat(p.take()).isSameAs(first);
    assertThat(made).hasValue(1);
    assertThat(freed).isEmpty();
    BufferStats s = p.stats();
    assertThat(s.requests()).isEqualTo(2);
    assertThat(s.made()).isEqualTo(1);
    assertThat(s.refused()).isZero();
  }

  @Test
  void warmMakesTheFirstBuffersSoRequestsMakeNone() {
    BufferPool<Object> p = pool(8, true);
    p.warm(4);
    assertThat(made).hasValue(4);
    for (int i = 0; i < 4; i++) {
      assertThat(p.take()).isNotNull();
    }
    assertThat(made).hasValue(4);
    assertThat(p.stats().made()).isEqualTo(4);
    assertThat(p.take()).isNotNull(); // the fifth: made on request
    assertThat(made).hasValue(5);
  }

  @Test
  void noMoreThanMaxExistAndEveryRefusalIsCounted() {
    BufferPool<Object> p = pool(2, true);
    p.warm(5); // bounded by max
    assertThat(made).hasValue(2);
    Object a = p.take();
    Object b = p.take();
    assertThat(p.take()).isNull();
    assertThat(p.take()).isNull();
    assertThat(p.stats().refused()).isEqualTo(2);
    p.give(a);
    assertThat(p.take()).isSameAs(a);
    assertThat(b).isNotNull();
    assertThat(made).hasValue(2);
  }

  @Test
  void withoutReuseEveryRequestMakesABufferAndEveryOneGivenBackIsFreed() {
    BufferPool<Object> p = pool(2, false);
    p.warm(2);
    assertThat(made).hasValue(0);
    Object a = p.take();
    p.give(a);
    assertThat(freed).containsExactly(a);
    Object b = p.take();
    assertThat(b).isNotSameAs(a);
    Object c = p.take();
    assertThat(p.take()).isNull(); // two exist: a's slot was given back
    p.give(b);
    p.give(c);
    assertThat(freed).containsExactly(a, b, c);
    assertThat(p.take()).isNotNull();
  }

  @Test
  void closeFreesTheIdleBuffersAndTheirSlots() {
    BufferPool<Object> p = pool(2, true);
    p.warm(2);
    Object held = p.take();
    p.close();
    assertThat(freed).hasSize(1).doesNotContain(held);
    assertThat(p.take()).isNotNull(); // the idle one's slot is free again
    assertThat(p.take()).isNull();
  }

  @Test
  void everyRequestIsTimed() {
    BufferPool<Object> p = new BufferPool<>(2, true, () -> {
      long until = System.nanoTime() + 2 * BufferPool.SLOW_NANOS;
      while (System.nanoTime() < until) {
        Thread.onSpinWait();
      }
      return new Object();
    }, o -> {});
    Object a = p.take();
    p.give(a);
    p.take();
    BufferStats s = p.stats();
    assertThat(s.requests()).isEqualTo(2);
    assertThat(s.slow()).isBetween(1L, 2L); // the reuse may be preempted on a loaded machine
    assertThat(s.maxRequestNanos()).isGreaterThanOrEqualTo(2 * BufferPool.SLOW_NANOS);
    assertThat(s.requestNanos()).isGreaterThanOrEqualTo(s.maxRequestNanos());
    assertThat(s.toString()).contains("requests=2", "made=1", "slow (> 50 us)");
  }

  @Test
  void aBufferThatCouldNotBeMadeLeavesItsSlotFree() {
    AtomicInteger attempts = new AtomicInteger();
    BufferPool<Object> p = new BufferPool<>(1, true, () -> {
      if (attempts.incrementAndGet() == 1) {
        throw new OutOfMemoryError("malloc");
      }
      return "buffer";
    }, o -> {});
    assertThatThrownBy(p::take).isInstanceOf(OutOfMemoryError.class);
    assertThat(p.take()).as("the failed one's slot is free again").isEqualTo("buffer");
    assertThat(p.stats().made()).isEqualTo(1);
  }

  @Test
  void aPoolOfNoBuffersIsRefused() {
    assertThatThrownBy(() -> pool(0, true)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max");
  }
}
