package io.github.trtrace.tensorrt.model.build;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Analysis of the JSON that {@code IEngineInspector.getEngineInformation(LayerInformationFormat.kJSON)}
 * returns: engine layers with type, tactic and precision, and which network layers each absorbed.
 *
 * <p>Format (TensorRT 10.x), as documented in NVIDIA's developer guide ("Engine Inspector") and parsed
 * by NVIDIA's trt-engine-explorer ({@code tools/experimental/trt-engine-explorer/trex/parser.py},
 * {@code layer.py}, {@code activations.py} in github.com/NVIDIA/TensorRT): a root object with {@code
 * "Layers"} and {@code "Bindings"} (list of I/O tensor names). At {@code ProfilingVerbosity::kDETAILED}
 * each layer is an object with {@code Name}, {@code LayerType}, optional {@code ParameterType}, {@code
 * Inputs}/{@code Outputs} (objects with {@code Name}, {@code Dimensions}, {@code Format/Datatype}),
 * {@code TacticName}, and {@code Metadata}: the original network layers, separated by U+001E (U+001F
 * also occurs), e.g. {@code "[ONNX Layer: /attn/MatMul]"}. At the default {@code kLAYER_NAMES_ONLY}
 * each layer is just its name string. Fused engine layers without metadata are named by joining the
 * network layer names with {@code " + "}, or, for Myelin's pointwise fusions, by nesting them: {@code
 * PWN(PWN(a), PWN(b))}; both forms are read.
 *
 * <p>TensorRT 11 changed the shape (NVIDIA's "Migrating IEngineInspector Usage from TensorRT 10.x to
 * 11.x"): {@code Bindings} became {@code "I/O Tensors"}, a list of objects ({@code Name}, {@code IOMode},
 * {@code DataType}, ...), and the tensors' {@code Format/Datatype} string was split into a format and a
 * data type field. Both shapes are read: the data type comes from {@code DataType} or {@code Datatype}
 * when present, else from the 10.x {@code Format/Datatype} string, else from {@code Format}.
 *
 * <p>{@link #precision()} is what the engine really runs in, derived from the per-layer types: TensorRT 11
 * has no precision builder flags at all (networks are always strongly typed), and on 10.x a flag only
 * allows a precision, it does not mean the engine uses it.
 *
 * <pre>{@code
 * EngineInspection info = EngineInspection.parse(inspector.getEngineInformation(kJSON).getString());
 * info.fusedGroups().forEach(g -> System.out.println(g.engineLayer() + " <- " + g.networkLayers()));
 * }</pre>
 */
public final class EngineInspection {
  private static final String ONNX_PREFIX = "[ONNX Layer: ";

  private final boolean detailed;
  private final List<BuildReport.Layer> layers;
  private final List<BuildReport.FusedGroup> fusedGroups;
  private final List<String> bindings;
  private final List<Boolean> builderInserted;

  private EngineInspection(boolean detailed, List<BuildReport.Layer> layers, List<BuildReport.FusedGroup> fusedGroups,
      List<String> bindings, List<Boolean> builderInserted) {
    this.detailed = detailed;
    this.builderInserted = List.copyOf(builderInserted);
    this.layers = List.copyOf(layers);
    this.fusedGroups = List.copyOf(fusedGroups);
    this.bindings = List.copyOf(bindings);
  }

  /**
   * Parses inspector JSON.
   *
   * @throws IllegalArgumentException when the text is not JSON or has no {@code Layers} array
   */
  public static EngineInspection parse(String json) {
    Objects.requireNonNull(json, "json");
    Map<String, @Nullable Object> root = Json.object(Json.parse(json), "engine information");
    if (!root.containsKey("Layers")) {
      throw new IllegalArgumentException("engine information has no \"Layers\" array");
    }
    List<@Nullable Object> raw = Json.array(root.get("Layers"), "Layers");
    List<BuildReport.Layer> layers = new ArrayList<>();
    List<BuildReport.FusedGroup> groups = new ArrayList<>();
    List<Boolean> inserted = new ArrayList<>();
    boolean detailed = false;
    for (Object o : raw) {
      if (o instanceof Map) {
        detailed = true;
        Map<String, @Nullable Object> l = Json.object(o, "layer");
        String name = Objects.requireNonNullElse(Json.string(l, "Name"), "");
        String type = Json.string(l, "ParameterType") != null ? Json.string(l, "ParameterType") : Json.string(l, "LayerType");
        List<String> outputTypes = new ArrayList<>();
        for (Object out : Json.array(l.get("Outputs"), "Outputs")) {
          String t = tensorType(out);
          if (t != null) {
            outputTypes.add(t);
          }
        }
        String precision = outputTypes.isEmpty() ? firstInputType(l) : outputTypes.get(0);
        layers.add(new BuildReport.Layer(name, type, precision, outputTypes, Json.string(l, "TacticName")));
        inserted.add(isBuilderInserted(Json.string(l, "LayerType")));
        addGroup(groups, name, networkLayers(name, Json.string(l, "LayerType"), Json.string(l, "Metadata")));
      } else if (o != null) {
        String name = o.toString();
        layers.add(new BuildReport.Layer(name, null, null, List.of(), null));
        inserted.add(false);
        addGroup(groups, name, networkLayers(name, null, null));
      }
    }
    List<String> bindings = new ArrayList<>(Json.strings(root, "Bindings"));
    for (Object t : Json.array(root.get("I/O Tensors"), "I/O Tensors")) {
      if (t instanceof Map) {
        String n = Json.string(Json.object(t, "tensor"), "Name");
        if (n != null) {
          bindings.add(n);
        }
      }
    }
    return new EngineInspection(detailed, layers, groups, bindings, inserted);
  }

  private static void addGroup(List<BuildReport.FusedGroup> groups, String engineLayer, List<String> network) {
    if (network.size() >= 2) {
      groups.add(new BuildReport.FusedGroup(engineLayer, network));
    }
  }

  private static final String[] TYPE_FIELDS = {"DataType", "Datatype", "Format/Datatype", "Format"};

  /** The tensor's data type from the first of {@link #TYPE_FIELDS} that names one (11.x fields first). */
  private static @Nullable String tensorType(@Nullable Object tensor) {
    if (!(tensor instanceof Map)) {
      return null;
    }
    Map<String, @Nullable Object> t = Json.object(tensor, "tensor");
    for (String field : TYPE_FIELDS) {
      String type = Precisions.ofFormat(Json.string(t, field));
      if (type != null) {
        return type;
      }
    }
    return null;
  }

  private static @Nullable String firstInputType(Map<String, @Nullable Object> layer) {
    List<@Nullable Object> in = Json.array(layer.get("Inputs"), "Inputs");
    return in.isEmpty() ? null : tensorType(in.get(0));
  }

  /** The network layers an engine layer came from: Metadata when present, else its {@code " + "} or {@code PWN(...)} name. */
  public static List<String> networkLayers(String name, @Nullable String layerType, @Nullable String metadata) {
    if (isBuilderInserted(layerType)) {
      return List.of(); // inserted by the builder, not from the network
    }
    List<String> out = new ArrayList<>();
    if (metadata != null && !metadata.isEmpty()) {
      for (String part : metadata.split("[\\u001E\\u001F]")) {
        String n = part.trim();
        if (n.startsWith(ONNX_PREFIX) && n.endsWith("]")) {
          n = n.substring(ONNX_PREFIX.length(), n.length() - 1).trim();
        }
        if (!n.isEmpty()) {
          out.add(n);
        }
      }
      return out;
    }
    for (String part : name.split(" \\+ ")) {
      if (!part.isBlank()) {
        pointwise(part.trim(), out);
      }
    }
    return out;
  }

  private static final String PWN = "PWN(";

  /**
   * Adds the network layers a Myelin pointwise name nests: {@code PWN(PWN(a), PWN(b))} is {@code a} and {@code b}
   * (as TensorRT 10.6 named the tiny ReLU + add network's one engine layer on the H200). The arguments are split at
   * top-level commas; a name that is not {@code PWN(...)} with balanced brackets is one network layer.
   */
  private static void pointwise(String name, List<String> out) {
    List<String> args = name.startsWith(PWN) && name.endsWith(")") ? topLevelArgs(name.substring(PWN.length(), name.length() - 1)) : null;
    if (args == null) {
      out.add(name);
      return;
    }
    for (String a : args) {
      pointwise(a, out);
    }
  }

  /** {@code s} split at commas outside brackets, trimmed; null when its brackets do not balance or a part is empty. */
  private static @Nullable List<String> topLevelArgs(String s) {
    List<String> args = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '(' || c == '[') {
        depth++;
      } else if (c == ')' || c == ']') {
        if (--depth < 0) {
          return null;
        }
      } else if (c == ',' && depth == 0) {
        args.add(s.substring(start, i).trim());
        start = i + 1;
      }
    }
    args.add(s.substring(start).trim());
    return depth != 0 || args.stream().anyMatch(String::isEmpty) ? null : args;
  }

  private static boolean isBuilderInserted(@Nullable String layerType) {
    return "Reformat".equals(layerType) || "NoOp".equals(layerType);
  }

  /** Whether the engine was built with {@code ProfilingVerbosity::kDETAILED} (layers are objects). */
  public boolean detailed() {
    return detailed;
  }

  /** Engine layers in engine order; type, precision and tactic are null unless {@link #detailed()}. */
  public List<BuildReport.Layer> layers() {
    return layers;
  }

  /** Engine layers that absorbed two or more network layers. */
  public List<BuildReport.FusedGroup> fusedGroups() {
    return fusedGroups;
  }

  /** Names of the engine's I/O tensors (10.x {@code Bindings} or 11.x {@code "I/O Tensors"}). */
  public List<String> bindings() {
    return bindings;
  }

  /**
   * The precision the engine computes in: the narrowest floating or quantised type ({@code fp4} &lt;
   * {@code fp8}/{@code int8} &lt; {@code fp16}/{@code bf16} &lt; {@code fp32}) among the layers' own
   * precisions, leaving out the reformat and no-op layers the builder inserts; null when the inspection
   * has no types (not {@link #detailed()}, or no layer with a recognised type).
   */
  public @Nullable String precision() {
    String best = null;
    for (int i = 0; i < layers.size(); i++) {
      BuildReport.Layer l = layers.get(i);
      if (builderInserted.get(i)) {
        continue;
      }
      int r = Precisions.rank(l.precision());
      if (r > 0 && (best == null || r < Precisions.rank(best))) {
        best = l.precision();
      }
    }
    return best;
  }
}
