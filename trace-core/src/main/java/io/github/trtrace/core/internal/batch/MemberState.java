package io.github.trtrace.core.internal.batch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * A request's batching figures while it is served, kept on its trace (one per trace object, reused
 * with it). One writer at a time, without a lock: whoever changes the figures first takes the
 * {@link #holder} with one compare-and-set (a launch when the request joins it, the scheduler for a
 * moment when it marks a slot wait or a preemption) and releases it with a volatile write, which
 * publishes what it wrote. The request's own end takes the holder for good ({@link #ENDED}).
 */
public final class MemberState extends BatchTally {
  private static final VarHandle HOLDER;

  static {
    try {
      HOLDER = MethodHandles.lookup().findVarHandle(MemberState.class, "holder", Object.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Held for good: the request ended. */
  static final Object ENDED = new Object() {
    @Override
    public String toString() {
      return "ended";
    }
  };
  /** Held for a moment by {@link #markSlotWait} / {@link #markPreempted}. */
  private static final Object MARKING = new Object();
  /** How long a request's end waits for a launch on another thread to release it. */
  private static final long END_WAIT_NANOS = 200_000_000L;

  /** null: free; a {@link LaunchImpl}: in that open launch; {@link #MARKING}; {@link #ENDED}. */
  @SuppressWarnings("unused") // through HOLDER
  private volatile @Nullable Object holder;
  /** Monotonic time since which the request waits for a slot, or -1. Written under the holder. */
  long waitingSince = -1;
  /** Monotonic time since which the request is preempted, or -1. Written under the holder. */
  long preemptedSince = -1;
  /** The request ended while its launch (on the same thread) was open: the launch releases it as ended. */
  volatile boolean endedInLaunch;

  /** This member's row in the launch holding it. */
  int row;

  /** A state held for good as ended: no launch can join it (what a stale garbage-free trace handle offers). */
  public static MemberState endedForGood() {
    MemberState s = new MemberState();
    HOLDER.setVolatile(s, ENDED);
    return s;
  }

  /** Whether {@code launch} holds it (so it joined that launch already). */
  boolean heldBy(LaunchImpl launch) {
    return HOLDER.getVolatile(this) == launch;
  }

  /** Back to a fresh request's state; only when no launch holds it ({@link #isReusable()}). */
  @Override
  public void reset() {
    super.reset();
    waitingSince = -1;
    preemptedSince = -1;
    endedInLaunch = false;
    HOLDER.setVolatile(this, null);
  }

  /** Whether no open launch holds it: the trace may be reused. */
  public boolean isReusable() {
    Object h = HOLDER.getVolatile(this);
    return h == null || h == ENDED;
  }

  /**
   * Takes the member for {@code launch}; false when it is in another launch, marked, or ended, or when
   * {@code member} no longer offers this state: a stale garbage-free handle whose check passed before its
   * trace went on to serve another request (whose state this is, reset to free). Checked with the take, under
   * the member's {@link BatchMember#joinLock()}.
   */
  boolean join(LaunchImpl launch, long launchStartNanos, BatchMember member) {
    // Checked and taken under the member's join lock, which the trace's init() (the reset of this state for
    // another request) holds: a stale handle's join never holds the next request's state, even for a moment
    // (a check after the take did: that request's marks and launches were refused meanwhile). Never waits
    // while holding it: the compare-and-set fails at once when another holds the state.
    Object lock = member.joinLock();
    if (lock == null) {
      if (!HOLDER.compareAndSet(this, null, launch)) {
        return false;
      }
    } else {
      synchronized (lock) {
        if (member.batchState() != this || !HOLDER.compareAndSet(this, null, launch)) {
          return false;
        }
      }
    }
    if (waitingSince >= 0) {
      slotWaitMs += Math.max(0, launchStartNanos - waitingSince) / 1e6;
      waitingSince = -1;
    }
    if (preemptedSince >= 0) {
      preemptedMs += Math.max(0, launchStartNanos - preemptedSince) / 1e6;
      preemptedSince = -1;
    }
    return true;
  }

  /** Releases the member after {@code launch} wrote its figures. */
  void release(LaunchImpl launch) {
    HOLDER.setRelease(this, endedInLaunch ? ENDED : null); // publishes the figures written under the hold
  }

  /** Starts a slot wait at {@code now} (admitted, not scheduled yet); false when held by a launch or ended. */
  public boolean markSlotWait(long now) {
    if (!HOLDER.compareAndSet(this, null, MARKING)) {
      return false;
    }
    if (waitingSince < 0 && preemptedSince < 0) { // a preempted request waiting again stays preempted
      waitingSince = now;
    }
    HOLDER.setVolatile(this, null);
    return true;
  }

  /** Counts a preemption at {@code now}; the time until the next launch is lost to it. */
  public boolean markPreempted(long now) {
    if (!HOLDER.compareAndSet(this, null, MARKING)) {
      return false;
    }
    preemptions++;
    if (waitingSince >= 0) { // one state at a time: a request waiting for a slot and preempted waits as preempted
      slotWaitMs += Math.max(0, now - waitingSince) / 1e6;
      waitingSince = -1;
    }
    if (preemptedSince < 0) {
      preemptedSince = now;
    }
    HOLDER.setVolatile(this, null);
    return true;
  }

  /**
   * The request ends at {@code now}: takes the member for good and copies its figures into {@code
   * into}, a wait or a preemption still running counted up to now. When a launch on another thread
   * holds it, waits for that launch to close (launches last milliseconds; at most {@value
   * #END_WAIT_NANOS} ns), so that the record includes it; a launch open on this very thread cannot be
   * waited for: the record is written without that launch (which the launch log still has).
   *
   * @return false when it waited in vain (the figures copied may miss the launch still running)
   */
  public boolean end(long now, BatchTally into) {
    long deadline = 0;
    int spins = 0;
    boolean complete = true;
    while (true) {
      Object h = HOLDER.getVolatile(this);
      if (h == null) {
        if (HOLDER.compareAndSet(this, null, ENDED)) {
          break;
        }
        continue;
      }
      if (h == ENDED) {
        break;
      }
      if (h instanceof LaunchImpl l && l.openedBy(Thread.currentThread())) {
        endedInLaunch = true;
        break;
      }
      if (spins == 0) {
        deadline = System.nanoTime() + END_WAIT_NANOS;
      }
      if (++spins < 100) {
        Thread.onSpinWait();
      } else if (System.nanoTime() - deadline < 0) {
        LockSupport.parkNanos(20_000);
      } else {
        endedInLaunch = true; // the launch, when it closes at last, releases the member as ended
        complete = false;
        break;
      }
    }
    into.copyFrom(this);
    if (waitingSince >= 0) {
      into.slotWaitMs += Math.max(0, now - waitingSince) / 1e6;
    }
    if (preemptedSince >= 0) {
      into.preemptedMs += Math.max(0, now - preemptedSince) / 1e6;
    }
    return complete;
  }
}
