package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.json.RecordFixtures;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class SharedLaunchTest {

  @Test
  void decodeRowsShareALaunchsGpuTimeByTokensAndTheRecordNamesTheMethod() {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      InferenceTrace b = f.tracer.start("m", "req-b");
      InferenceTrace c = f.tracer.start("m", "req-c");
      try (SharedLaunch l = f.tracer.launch("sha256:e1")) {
        l.decode(a).decode(b).prefill(c, 6);
        f.advanceMs(4);
        l.gpuMs(8.0);
      }
      a.close();
      b.close();
      c.close();
      Map<String, InferenceRecord> r = f.byId();
      assertThat(r.get("req-a").gpuMs()).isCloseTo(1.0, within(1e-9));
      assertThat(r.get("req-b").gpuMs()).isCloseTo(1.0, within(1e-9));
      assertThat(r.get("req-c").gpuMs()).isCloseTo(6.0, within(1e-9));
      SharedLaunch.Summary s = r.get("req-a").batching();
      assertThat(s).isNotNull();
      assertThat(s.launchCount()).isEqualTo(1);
      assertThat(s.batchSizeMax()).isEqualTo(3);
      assertThat(s.shareMethod()).isEqualTo("tokens");
      assertThat(f.launches).singleElement().satisfies(l -> {
        assertThat(l.phase()).isEqualTo("mixed");
        assertThat(l.hostMs()).isEqualTo(4.0);
        assertThat(l.shareSum()).isEqualTo(8.0);
      });
      String line = RecordConvention.toJson(r.get("req-a"));
      assertThat(line).contains("\"gpu_ms_method\":\"tokens\"", "\"launch_count\":1", "\"batch_size_max\":3");
      assertThat(RecordFixtures.validate(line)).as(line).isEmpty();
    }
  }

  /**
   * Record entries are pooled: the requests after one that rode shared launches reuse its entry, and
   * none of them may carry its launches, its GPU share or its launches' engine.
   */
  @Test
  void requestsWithoutLaunchesCarryNothingOfAnEarlierMemberWhoseEntryTheyReuse() {
    try (BatchFixture f = new BatchFixture()) {
      for (int round = 0; round < 20; round++) {
        InferenceTrace member = f.tracer.start("m", "member-" + round);
        try (SharedLaunch l = f.tracer.launch("sha256:e1")) {
          l.decode(member).gpuMs(3.0);
        }
        member.close();
        f.tracer.flush().join(); // the member's entry is back in the pool
        for (int i = 0; i < 5; i++) {
          try (InferenceTrace plain = f.tracer.start("m", "plain-" + round + "-" + i)) {
            plain.stage(Stage.INFER).close();
          }
          f.tracer.flush().join();
        }
      }
      Map<String, InferenceRecord> r = f.byId();
      assertThat(r).hasSize(20 * 6);
      assertThat(r.get("member-7").batching()).isNotNull();
      assertThat(r.get("member-7").gpuMs()).isCloseTo(3.0, within(1e-9));
      assertThat(r.get("member-7").engineFingerprint()).isEqualTo("sha256:e1");
      assertThat(r.values()).filteredOn(x -> x.requestId().startsWith("plain-")).hasSize(100).allSatisfy(x -> {
        assertThat(x.batching()).as(x.requestId()).isNull();
        assertThat(x.gpuMs()).as(x.requestId()).isNaN();
        assertThat(x.engineFingerprint()).as(x.requestId()).isNull();
      });
    }
  }

  @Test
  void membersCarryTheirLaunchesEngineFingerprintUnlessTheyNamedTheirOwn() {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      InferenceTrace b = f.tracer.start("m", "req-b").engineFingerprint("sha256:own");
      InferenceTrace c = f.tracer.start("m", "req-c");
      try (SharedLaunch l = f.tracer.launch("sha256:e1")) {
        l.decode(a).decode(b).gpuMs(2);
      }
      try (SharedLaunch l = f.tracer.launch(null)) {
        l.decode(c).gpuMs(2);
      }
      a.close();
      b.close();
      c.close();
      Map<String, InferenceRecord> r = f.byId();
      assertThat(r.get("req-a").engineFingerprint()).isEqualTo("sha256:e1");
      assertThat(r.get("req-b").engineFingerprint()).isEqualTo("sha256:own");
      assertThat(r.get("req-c").engineFingerprint()).isNull();
    }
  }

  @Test
  void theMethodsRowsAndEqualSplitAsNamed() {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      InferenceTrace b = f.tracer.start("m", "req-b");
      try (SharedLaunch l = f.tracer.launch(null)) {
        l.rows(a, 3).rows(b, 1).shareBy(SharedLaunch.ShareMethod.ROWS).gpuMs(4);
      }
      try (SharedLaunch l = f.tracer.launch(null)) {
        l.prefill(a, 100).decode(b).shareBy(SharedLaunch.ShareMethod.EQUAL).gpuMs(4);
      }
      a.close();
      b.close();
      Map<String, InferenceRecord> r = f.byId();
      assertThat(r.get("req-a").gpuMs()).isCloseTo(3 + 2, within(1e-9));
      assertThat(r.get("req-b").gpuMs()).isCloseTo(1 + 2, within(1e-9));
      assertThat(r.get("req-a").batching().shareMethod()).isEqualTo("mixed");
      assertThat(f.launches.get(0).phase()).isEqualTo("rows");
    }
  }

  @Test
  void weightedSplitsByTheSchedulersWeightsAndIgnoresBadWeights() {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      InferenceTrace b = f.tracer.start("m", "req-b");
      InferenceTrace outsider = f.tracer.start("m", "req-x");
      long misuse = f.tracer.stats().misuse();
      try (SharedLaunch l = f.tracer.launch(null)) {
        l.decode(a).prefill(b, 1).shareBy(SharedLaunch.ShareMethod.WEIGHTED).gpuMs(10);
        l.weight(a, 3).weight(b, 1);
        l.weight(b, Double.NaN).weight(a, -1).weight(outsider, 5); // ignored, counted
      }
      a.close();
      b.close();
      outsider.close();
      Map<String, InferenceRecord> r = f.byId();
      assertThat(r.get("req-a").gpuMs()).isCloseTo(7.5, within(1e-9));
      assertThat(r.get("req-b").gpuMs()).isCloseTo(2.5, within(1e-9));
      assertThat(r.get("req-a").batching().shareMethod()).isEqualTo("weighted");
      assertThat(r.get("req-x").batching()).isNull();
      assertThat(f.tracer.stats().misuse() - misuse).isEqualTo(3);
      String line = RecordConvention.toJson(r.get("req-a"));
      assertThat(RecordFixtures.validate(line)).as(line).isEmpty();
    }
  }

  @Test
  void aRequestServedAloneIsTheBatchOfOneWithItsWholeGpuTime() {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-solo");
      a.addGpuMs(0.5); // measured outside launches: added to, not replaced by, the shares
      for (int i = 0; i < 3; i++) {
        try (SharedLaunch l = f.tracer.launch(null)) {
          l.decode(a).gpuMs(2);
        }
      }
      a.close();
      InferenceRecord r = f.byId().get("req-solo");
      assertThat(r.gpuMs()).isCloseTo(6.5, within(1e-9));
      assertThat(r.batching().batchSizeMean()).isEqualTo(1.0);
      assertThat(r.batching().launchCount()).isEqualTo(3);
      assertThat(r.batching().lastLaunchId() - r.batching().firstLaunchId()).isEqualTo(2);
      assertThat(r.batching().neighbourPrefillLaunches()).isZero();
    }
  }

  @Test
  void aDecodeStepCarryingAnotherRequestsLongPrefillNamesThatRequest() {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace victim = f.tracer.start("m", "req-victim");
      InferenceTrace longPrompt = f.tracer.start("m", "req-long");
      InferenceTrace shortPrompt = f.tracer.start("m", "req-short");
      try (SharedLaunch l = f.tracer.launch(null)) {
        l.decode(victim).prefill(longPrompt, 2048).prefill(shortPrompt, 16).gpuMs(30);
        f.advanceMs(31);
      }
      try (SharedLaunch l = f.tracer.launch(null)) {
        l.decode(victim).decode(longPrompt).decode(shortPrompt).gpuMs(3);
        f.advanceMs(3);
      }
      victim.close();
      longPrompt.close();
      shortPrompt.close();
      Map<String, InferenceRecord> r = f.byId();
      SharedLaunch.Summary v = r.get("req-victim").batching();
      assertThat(v.neighbourPrefillLaunches()).isEqualTo(1);
      assertThat(v.neighbourPrefillMs()).isEqualTo(31.0);
      assertThat(v.slowedBy()).extracting(SharedLaunch.Neighbour::requestId).containsExactly("req-long", "req-short");
      assertThat(v.slowedBy().get(0).prefillTokens()).isEqualTo(2048);
      // the long prompt's own record: slowed by the short one only
      assertThat(r.get("req-long").batching().slowedBy()).extracting(SharedLaunch.Neighbour::requestId)
          .containsExactly("req-short");
      String line = RecordConvention.toJson(r.get("req-victim"));
      assertThat(line).contains("\"slowed_by\":[{\"request_id\":\"req-long\",\"prefill_tokens\":2048,\"launches\":1}");
      assertThat(RecordFixtures.validate(line)).as(line).isEmpty();
    }
  }

  @Test
  void slotWaitAndPreemptionAreTimedToTheNextLaunch() {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      a.runStage(Stage.QUEUE, () -> f.advanceMs(5)); // the admission queue, apart
      a.waitingForSlot();
      f.advanceMs(40);
      try (SharedLaunch l = f.tracer.launch(null)) {
        l.prefill(a, 10).gpuMs(1);
        f.advanceMs(2);
      }
      a.preempted("kv_cache_full");
      f.advanceMs(100);
      try (SharedLaunch l = f.tracer.launch(null)) {
        l.decode(a).gpuMs(1);
        f.advanceMs(1);
      }
      a.preempted("kv_cache_full");
      f.advanceMs(7); // ends while preempted: counted to its end
      a.close();
      InferenceRecord r = f.byId().get("req-a");
      assertThat(r.queueMs()).isEqualTo(5.0);
      assertThat(r.batching().slotWaitMs()).isEqualTo(40.0);
      assertThat(r.batching().preemptions()).isEqualTo(2);
      assertThat(r.batching().preemptedMs()).isEqualTo(107.0);
      assertThat(r.events()).extracting(InferenceRecord.Event::kind).containsExactly("preempted", "preempted");
      assertThat(r.latencyMs()).isGreaterThanOrEqualTo(
          r.queueMs() + r.batching().slotWaitMs() + r.batching().preemptedMs());
    }
  }

  @Test
  void aFailedLaunchMarksEveryMemberAndNotTheRequestCurrentOnTheSchedulerThread() {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      InferenceTrace b = f.tracer.start("m", "req-b");
      InferenceTrace bystander = f.tracer.start("m", "req-current");
      long failedId;
      try (RequestContext.Scope current = RequestContext.with("req-current").build().open();
          SharedLaunch l = f.tracer.launch(null)) {
        assertThat(SharedLaunch.current()).isSameAs(l);
        l.decode(a).decode(b);
        l.event("tensorrt", "ERROR", "enqueueV3 failed");
        l.error("tensorrt.enqueue_failed");
        failedId = l.id();
      }
      assertThat(SharedLaunch.current()).isNull();
      a.close();
      b.close();
      bystander.close();
      Map<String, InferenceRecord> r = f.byId();
      for (String id : new String[] {"req-a", "req-b"}) {
        InferenceRecord m = r.get(id);
        assertThat(m.status()).isEqualTo(Status.ERROR);
        assertThat(m.errorType()).isEqualTo("tensorrt.enqueue_failed");
        assertThat(m.batching().failedLaunches()).isEqualTo(1);
        assertThat(m.batching().failedLaunchId()).isEqualTo(failedId);
        assertThat(m.events()).extracting(InferenceRecord.Event::message)
            .contains("launch " + failedId + ": enqueueV3 failed");
        assertThat(RecordConvention.toJson(m)).contains("\"failed_launch_id\":" + failedId);
      }
      InferenceRecord other = r.get("req-current");
      assertThat(other.status()).isEqualTo(Status.SUCCESS);
      assertThat(other.errorType()).isNull();
      assertThat(other.batching()).isNull();
      assertThat(f.launches.get(0).errorType()).isEqualTo("tensorrt.enqueue_failed");
    }
  }

  @Test
  void aRequestInTwoOpenLaunchesAtOnceIsMisuseAndCountsOnce() {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      SharedLaunch first = f.tracer.launch(null);
      SharedLaunch second = f.tracer.launch(null);
      first.decode(a);
      second.decode(a);
      second.close();
      first.prefill(a, 4).gpuMs(2); // same row as its decode
      first.close();
      first.decode(a); // after close
      a.close();
      InferenceRecord r = f.byId().get("req-a");
      assertThat(r.batching().launchCount()).isEqualTo(1);
      assertThat(r.gpuMs()).isEqualTo(2.0);
      assertThat(f.tracer.stats().misuse()).isEqualTo(2);
      assertThat(f.launches.get(1).batchSize()).isEqualTo(1);
    }
  }

  @Test
  void withoutListenersTheRecordBuiltOnTheWorkerCarriesTheBatchingFieldsToo() {
    java.util.List<InferenceRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (InferenceTracer tracer = InferenceTracer.builder()
        .sink(io.github.trtrace.core.sink.RecordSink.named("memory", records::addAll)).shutdownHook(false).build()) {
      InferenceTrace a = tracer.start("m", "req-worker");
      try (SharedLaunch l = tracer.launch(null)) {
        l.decode(a).gpuMs(2);
      }
      a.close();
      tracer.flush().join();
    }
    assertThat(records).singleElement().satisfies(r -> {
      assertThat(r.batching()).isNotNull();
      assertThat(r.batching().launchCount()).isEqualTo(1);
      assertThat(r.gpuMs()).isEqualTo(2.0);
    });
  }

  @Test
  void aRequestThatNeverJoinedALaunchHasNoBatchingFields() {
    try (BatchFixture f = new BatchFixture()) {
      f.tracer.start("m", "req-plain").close();
      InferenceRecord r = f.byId().get("req-plain");
      assertThat(r.batching()).isNull();
      assertThat(RecordConvention.toJson(r)).doesNotContain("launch");
    }
  }

  @Test
  void theNoopTracersLaunchAcceptsEverything() {
    InferenceTracer noop = InferenceTracer.noop();
    InferenceTrace t = noop.start("m");
    try (SharedLaunch l = noop.launch("x")) {
      l.prefill(t, 3).decode(t).rows(t, 2).gpuMs(1).error("e").event("k", "s", "m");
    }
    t.waitingForSlot().preempted("x").close();
    assertThat(noop.launchStats().launches()).isZero();
  }

  @Test
  void aGarbageFreeTraceIsNotReusedWhileALaunchStillHoldsIt() {
    try (BatchFixture f = new BatchFixture(null, true)) {
      // the body ends the request inside its launch on this very thread; the next call must get a fresh state
      SharedLaunch[] open = new SharedLaunch[1];
      f.tracer.run("m", "req-1", t -> {
        open[0] = f.tracer.launch(null);
        open[0].decode(t).gpuMs(1);
      });
      open[0].close();
      f.tracer.run("m", "req-2", t -> {
        try (SharedLaunch l = f.tracer.launch(null)) {
          l.decode(t).gpuMs(5);
        }
      });
      Map<String, InferenceRecord> r = f.byId();
      assertThat(r.get("req-2").batching().launchCount()).isEqualTo(1);
      assertThat(r.get("req-2").gpuMs()).isEqualTo(5.0);
    }
  }

  @Test
  void aSecondCloseWhileTheFirstWaitsForAnOpenLaunchIsMisuseAndLeavesTheEntryAlone() throws Exception {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      CountDownLatch joined = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Thread scheduler = new Thread(() -> {
        try (SharedLaunch l = f.tracer.launch(null)) {
          l.decode(a).gpuMs(3);
          joined.countDown();
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      scheduler.start();
      joined.await();
      // the first close waits (up to 200 ms) for the launch that still holds the request
      Thread first = new Thread(a::close);
      first.start();
      while (first.getState() != Thread.State.TIMED_WAITING && first.isAlive()) {
        Thread.onSpinWait();
      }
      // a second close meanwhile is misuse and returns at once. Before the end was claimed it waited
      // for the launch too and copied the batching figures into the entry itself: into the one the
      // first close hands off (and the pool gives to another request), and here, waiting out its
      // 200 ms with the launch held open, it left the record without its launch
      a.close();
      boolean firstStillWaiting = first.isAlive();
      release.countDown();
      scheduler.join();
      first.join();
      assertThat(firstStillWaiting).as("the second close returned while the first still waited").isTrue();
      assertThat(f.tracer.stats().misuse()).isEqualTo(1);
      Map<String, InferenceRecord> r = f.byId();
      assertThat(f.records).hasSize(1);
      assertThat(r.get("req-a").batching().launchCount()).isEqualTo(1);
      assertThat(r.get("req-a").gpuMs()).isEqualTo(3.0);
    }
  }

  @Test
  void aLaunchThatTakesTheRequestWhileItsCloseBeginsIsOnItsRecord() throws Exception {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      Thread closer = new Thread(a::close, "closer");
      java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
      synchronized (a) {
        // the close has found no batching state yet and waits for the trace's monitor
        closer.start();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!Thread.currentThread().getName().equals(lockOwner(mx, closer)) && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        assertThat(lockOwner(mx, closer)).as("the closer waits for the trace").isEqualTo(Thread.currentThread().getName());
        // meanwhile a launch takes the request (its batching state is made now) and ends before the request
        try (SharedLaunch l = f.tracer.launch(null)) {
          l.decode(a).gpuMs(3);
        }
      }
      closer.join();
      InferenceRecord r = f.byId().get("req-a");
      assertThat(r.batching()).as("the launch that ended before the request").isNotNull();
      assertThat(r.batching().launchCount()).isEqualTo(1);
      assertThat(r.gpuMs()).isEqualTo(3.0);
    }
  }

  private static String lockOwner(java.lang.management.ThreadMXBean mx, Thread t) {
    java.lang.management.ThreadInfo info = mx.getThreadInfo(t.getId());
    return info == null || info.getThreadState() != Thread.State.BLOCKED ? null : info.getLockOwnerName();
  }
}
