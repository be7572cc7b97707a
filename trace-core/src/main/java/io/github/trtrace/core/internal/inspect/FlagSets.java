package io.github.trtrace.core.internal.inspect;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Every subset of a small flag enum, made once, indexed by the bit mask of its ordinals: the
 * inspectors return these shared unmodifiable sets, so that computing flags allocates nothing.
 */
final class FlagSets {
  private FlagSets() {}

  @SuppressWarnings("unchecked")
  static <F extends Enum<F>> Set<F>[] allCombinations(Class<F> type) {
    F[] flags = type.getEnumConstants();
    Set<F>[] sets = new Set[1 << flags.length];
    for (int mask = 0; mask < sets.length; mask++) {
      EnumSet<F> s = EnumSet.noneOf(type);
      for (F f : flags) {
        if ((mask & (1 << f.ordinal())) != 0) {
          s.add(f);
        }
      }
      sets[mask] = mask == 0 ? Collections.emptySet() : Collections.unmodifiableSet(s);
    }
    return sets;
  }
}
