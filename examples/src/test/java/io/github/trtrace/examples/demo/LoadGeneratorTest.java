package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.context.RequestIds;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadGeneratorTest {
  private final LoadGenerator.Plan plan = LoadGenerator.plan(7, 400, 20, 60, Duration.ofMillis(100), 32);
  private final List<LoadGenerator.Planned> all = plan.requests();

  @Test
  void idsAreUniqueFixedWidthAndNoneIsAPrefixOfAnother() {
    List<String> ids = all.stream().map(LoadGenerator.Planned::header).filter(RequestIds::isValid).toList();
    assertThat(ids).doesNotHaveDuplicates().allMatch(id -> id.matches("api-demo-\\d{4}"));
    for (String a : ids) {
      assertThat(ids.stream().filter(b -> b.contains(a))).as(a).hasSize(1); // grep a finds one request
    }
  }

  @Test
  void poissonArrivalsSpreadOverTimeAndTheBurstIsWithinItsWindow() {
    List<LoadGenerator.Planned> poisson = all.stream().filter(p -> !p.burst()).toList();
    double span = (poisson.get(poisson.size() - 1).atNanos() - poisson.get(0).atNanos()) / 1e9;
    assertThat(span).isBetween(400 / 20.0 * 0.8, 400 / 20.0 * 1.3); // about n / rate seconds
    List<LoadGenerator.Planned> burst = all.stream().filter(LoadGenerator.Planned::burst).toList();
    assertThat(burst).hasSize(60).allMatch(p -> p.atNanos() >= plan.burstStartNanos()
        && p.atNanos() < plan.burstEndNanos());
    assertThat(all).isSortedAccordingTo((a, b) -> Long.compare(a.atNanos(), b.atNanos()));
  }

  @Test
  void theMixIsMostlyShortWithSomeLongInputsAFewBidiPromptsAndAFewHostileIds() {
    long longOnes = all.stream().filter(p -> p.words() >= 1024).count();
    long shortOnes = all.stream().filter(p -> p.words() < 128).count();
    assertThat(shortOnes).isGreaterThan(all.size() / 2);
    assertThat(longOnes).isBetween(all.size() / 20L, all.size() / 5L);
    assertThat(all).anyMatch(p -> p.bidi().equals("unbalanced")).anyMatch(p -> p.bidi().equals("balanced"));
    assertThat(all.stream().filter(p -> !p.bidi().isEmpty()).count()).isLessThan(all.size() / 10L);
    assertThat(all).anyMatch(LoadGenerator.Planned::hostileHeader);
  }

  @Test
  void longDocumentsArriveWhileChatsThatAnswerAtLengthDecode() {
    List<LoadGenerator.Planned> chats = all.stream().filter(p -> p.maxTokens() == LoadGenerator.EPISODE_TOKENS).toList();
    assertThat(chats).hasSize(LoadGenerator.EPISODES * LoadGenerator.EPISODE_CHATS).allMatch(p -> p.words() < 128);
    for (LoadGenerator.Planned chat : chats) { // a document follows each chat within the gap (and a little)
      assertThat(all).anyMatch(d -> d.words() >= 1900 && d.atNanos() > chat.atNanos()
          && d.atNanos() - chat.atNanos() <= (LoadGenerator.EPISODE_GAP_MS + 20) * 1_000_000L);
    }
  }

  @Test
  void thePlanIsRepeatableForASeedAndItsPromptsDoNotDependOnTheRate() {
    LoadGenerator.Plan again = LoadGenerator.plan(7, 400, 5, 60, Duration.ofMillis(100), 32);
    java.util.Comparator<LoadGenerator.Planned> byIndex = java.util.Comparator.comparingInt(LoadGenerator.Planned::index);
    assertThat(again.requests().stream().sorted(byIndex).map(LoadGenerator.Planned::prompt).toList())
        .containsExactlyElementsOf(all.stream().sorted(byIndex).map(LoadGenerator.Planned::prompt).toList());
  }
}
