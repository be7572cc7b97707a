package io.github.trtrace.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ContextStoragesTest {
  private final AtomicInteger loads = new AtomicInteger();
  private final ContextStorage scoped = new NamedStorage("scopedvalue");
  private final Supplier<ContextStorage> available = () -> {
    loads.incrementAndGet();
    return scoped;
  };
  private final Supplier<ContextStorage> missing = () -> {
    loads.incrementAndGet();
    return null;
  };

  @Test
  void defaultOnJava17IsThreadLocalWithoutTryingScopedValue() {
    ContextStorages.Selection s = ContextStorages.select(null, 17, available);
    assertThat(s.storage().name()).isEqualTo("threadlocal");
    assertThat(s.warning()).isNull();
    assertThat(loads).hasValue(0);
  }

  @Test
  void defaultOnJava25PrefersScopedValueWhenItsClassLoads() {
    ContextStorages.Selection s = ContextStorages.select(null, 25, available);
    assertThat(s.storage()).isSameAs(scoped);
    assertThat(s.warning()).isNull();
  }

  @Test
  void defaultOnJava25FallsBackToThreadLocalSilentlyWhenClassIsAbsent() {
    ContextStorages.Selection s = ContextStorages.select("  ", 25, missing);
    assertThat(s.storage().name()).isEqualTo("threadlocal");
    assertThat(s.warning()).isNull();
  }

  @Test
  void propertyThreadLocalWinsEvenOnJava25() {
    ContextStorages.Selection s = ContextStorages.select("ThreadLocal", 25, available);
    assertThat(s.storage().name()).isEqualTo("threadlocal");
    assertThat(s.warning()).isNull();
    assertThat(loads).hasValue(0);
  }

  @Test
  void propertyScopedValueOnJava25UsesIt() {
    ContextStorages.Selection s = ContextStorages.select("scopedvalue", 25, available);
    assertThat(s.storage()).isSameAs(scoped);
    assertThat(s.warning()).isNull();
  }

  @Test
  void propertyScopedValueBeforeJava25WarnsAndFallsBack() {
    ContextStorages.Selection s = ContextStorages.select("scopedvalue", 21, available);
    assertThat(s.storage().name()).isEqualTo("threadlocal");
    assertThat(s.warning()).contains("needs Java 25+").contains("21");
  }

  @Test
  void propertyScopedValueWithoutItsClassWarnsAndFallsBack() {
    ContextStorages.Selection s = ContextStorages.select("scopedvalue", 25, missing);
    assertThat(s.storage().name()).isEqualTo("threadlocal");
    assertThat(s.warning()).contains("cannot be loaded").contains("multi-release");
  }

  @Test
  void unknownPropertyValueWarnsAndUsesTheDefault() {
    ContextStorages.Selection onOld = ContextStorages.select("fibers", 17, available);
    assertThat(onOld.storage().name()).isEqualTo("threadlocal");
    assertThat(onOld.warning()).contains("'fibers'").contains("threadlocal, scopedvalue");
    ContextStorages.Selection onNew = ContextStorages.select("fibers", 25, available);
    assertThat(onNew.storage()).isSameAs(scoped);
    assertThat(onNew.warning()).contains("using scopedvalue");
  }

  @Test
  void reflectiveLoadFindsScopedValueStorageExactlyWhenTheVersionedClassIsVisible() {
    ContextStorage loaded = ContextStorages.loadScopedValue();
    if (Runtime.version().feature() < 25) {
      assertThat(loaded).isNull();
    }
    if (loaded != null) {
      assertThat(loaded.name()).isEqualTo("scopedvalue");
    }
    boolean expectScoped = "scopedvalue".equals(System.getProperty("trtrace.test.expectedStorage"));
    if (expectScoped) {
      assertThat(loaded).isNotNull();
    }
  }

  /** A stand-in for the Java 25 storage, so the selection rule is tested on any JDK. */
  private static final class NamedStorage implements ContextStorage {
    private final String name;
    private final ContextStorage delegate = new ThreadLocalStorage();

    NamedStorage(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public RequestContext current() {
      return delegate.current();
    }

    @Override
    public RequestContext.Scope open(RequestContext context) {
      return delegate.open(context);
    }

    @Override
    public void run(RequestContext context, Runnable task) {
      delegate.run(context, task);
    }

    @Override
    public <T> T call(RequestContext context, java.util.concurrent.Callable<T> task) throws Exception {
      return delegate.call(context, task);
    }
  }
}
