package io.github.trtrace.tensorrt.internal.cupti;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.BitSet;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Which CUDA API calls issue GPU work, by CUPTI callback id ({@code cbid}), and which one is the recorder's closing
 * marker. Built once from the cupti preset's {@code CUPTI_RUNTIME_TRACE_CBID_<function>} and {@code
 * CUPTI_DRIVER_TRACE_CBID_<function>} constants, chosen by function name, so the same sources serve every preset
 * (12.6 and 13.x name the same calls; 13.x adds some, e.g. {@code cuGraphLaunchWithArguments}).
 *
 * <p>Work-issuing: kernel launches ({@code cudaLaunch}, {@code cudaLaunchKernel*}, {@code
 * cudaLaunchCooperativeKernel*}, {@code cuLaunch}, {@code cuLaunchKernel*}, {@code cuLaunchCooperativeKernel*},
 * {@code cuLaunchGrid*}), graph launches ({@code cudaGraphLaunch}, {@code cuGraphLaunch*}: they may issue many
 * kernels), memory copies ({@code cudaMemcpy*}, {@code cuMemcpy*}) and memsets ({@code cudaMemset*}, {@code
 * cuMemset*}). Not host-function launches ({@code cudaLaunchHostFunc}, {@code cuLaunchHostFunc}): they leave no
 * kernel, copy or memset record. Nor memory copies when their activity kind is not recorded ({@link #of(Map, boolean)}):
 * they would owe a record that never comes.
 *
 * <pre>{@code
 * ApiCalls calls = ApiCalls.of(ApiCalls.constantsOf(org.bytedeco.cuda.global.cupti.class));
 * calls.work(ActivityRow.RUNTIME, cbid);
 * }</pre>
 */
public final class ApiCalls {
  public static final String RUNTIME_PREFIX = "CUPTI_RUNTIME_TRACE_CBID_";
  public static final String DRIVER_PREFIX = "CUPTI_DRIVER_TRACE_CBID_";
  /** The runtime call {@link CuptiRecorder} makes at the end of each recorded enqueue (see there why this one). */
  public static final String MARKER = RUNTIME_PREFIX + "cudaPeekAtLastError_v3020";

  /** The memory copies, matched against a function's name up to its first {@code _} ({@link #baseName}). */
  private static final String COPIES = "cudaMemcpy\\w*|cuMemcpy\\w*";
  private static final Pattern COPY = Pattern.compile(COPIES);
  /** The work-issuing functions, matched the same way (the version and stream suffixes: {@code _v2}, {@code _ptsz_v7000}). */
  private static final Pattern WORK = Pattern.compile(
      "cudaLaunch|cudaLaunchKernel(ExC)?|cudaLaunchCooperativeKernel(MultiDevice)?"
          + "|cuLaunch|cuLaunchKernel(Ex)?|cuLaunchCooperativeKernel(MultiDevice)?|cuLaunchGrid(Async)?"
          + "|cudaGraphLaunch|cuGraphLaunch(WithArguments)?"
          + "|" + COPIES + "|cudaMemset\\w*|cuMemset\\w*");

  private final BitSet runtimeWork = new BitSet();
  private final BitSet driverWork = new BitSet();
  private final int marker;

  private ApiCalls(int marker) {
    this.marker = marker;
  }

  /**
   * From the preset's constants, name to value ({@link #constantsOf}); names without either prefix are ignored.
   *
   * @throws IllegalArgumentException when the marker's constant ({@value #MARKER}) is not among them
   */
  public static ApiCalls of(Map<String, Integer> constants) {
    return of(constants, true);
  }

  /**
   * As {@link #of(Map)}; with {@code copies} false, memory copies ({@code cudaMemcpy*}, {@code cuMemcpy*}) are not
   * work-issuing: the recorder does not record their activity kind then, so they owe no record.
   */
  public static ApiCalls of(Map<String, Integer> constants, boolean copies) {
    Integer m = constants.get(MARKER);
    if (m == null) {
      throw new IllegalArgumentException("the cupti preset has no " + MARKER);
    }
    ApiCalls c = new ApiCalls(m);
    for (Map.Entry<String, Integer> e : constants.entrySet()) {
      String name = e.getKey();
      int cbid = e.getValue();
      if (cbid <= 0 || cbid == Integer.MAX_VALUE) {
        continue; // *_INVALID, *_FORCE_INT
      }
      boolean runtime = name.startsWith(RUNTIME_PREFIX);
      if (!runtime && !name.startsWith(DRIVER_PREFIX)) {
        continue;
      }
      String function = name.substring(runtime ? RUNTIME_PREFIX.length() : DRIVER_PREFIX.length());
      if (issuesWork(function) && (copies || !isCopy(function))) {
        (runtime ? c.runtimeWork : c.driverWork).set(cbid);
      }
    }
    return c;
  }

  /** Whether the CUDA function (as CUPTI names its callback id, e.g. {@code cudaLaunchKernel_ptsz_v7000}) issues GPU work. */
  public static boolean issuesWork(String function) {
    return WORK.matcher(baseName(function)).matches();
  }

  /** Whether the CUDA function (as CUPTI names its callback id, e.g. {@code cudaMemcpyAsync_v3020}) copies memory. */
  public static boolean isCopy(String function) {
    return COPY.matcher(baseName(function)).matches();
  }

  /** A function's name up to its first {@code _}: without the version and stream suffixes. */
  private static String baseName(String function) {
    int cut = function.indexOf('_');
    return cut < 0 ? function : function.substring(0, cut);
  }

  /**
   * The {@code static final int} fields of {@code cuptiGlobal} named with either prefix, by reflection. Reading them
   * initialises the class, which loads CUPTI's native library: call it once CUPTI is loaded.
   */
  public static Map<String, Integer> constantsOf(Class<?> cuptiGlobal) throws IllegalAccessException {
    Map<String, Integer> out = new TreeMap<>();
    for (Field f : cuptiGlobal.getFields()) {
      String n = f.getName();
      int mod = f.getModifiers();
      if (f.getType() == int.class && Modifier.isStatic(mod) && Modifier.isFinal(mod)
          && (n.startsWith(RUNTIME_PREFIX) || n.startsWith(DRIVER_PREFIX))) {
        out.put(n, f.getInt(null));
      }
    }
    return out;
  }

  /** Whether an API row ({@link ActivityRow#RUNTIME} or {@link ActivityRow#DRIVER}) with this cbid issues GPU work. */
  public boolean work(int kind, int cbid) {
    if (cbid < 0) {
      return false;
    }
    return kind == ActivityRow.RUNTIME ? runtimeWork.get(cbid) : kind == ActivityRow.DRIVER && driverWork.get(cbid);
  }

  /** Whether an API row is the recorder's closing marker call. */
  public boolean marker(int kind, int cbid) {
    return kind == ActivityRow.RUNTIME && cbid == marker;
  }

  /** Work-issuing callback ids known: runtime, driver. */
  public int[] counts() {
    return new int[] {runtimeWork.cardinality(), driverWork.cardinality()};
  }
}
