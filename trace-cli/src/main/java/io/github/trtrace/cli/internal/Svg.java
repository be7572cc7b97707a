package io.github.trtrace.cli.internal;

import java.util.Locale;

/** A small SVG chart builder: a plot area with linear or log axes, ticks, and escaped text. */
final class Svg {
  static final int W = 620;
  static final int H = 320;
  static final int LEFT = 64;
  static final int RIGHT = 30;
  static final int TOP = 28;
  static final int BOTTOM = 46;

  private final StringBuilder sb = new StringBuilder();
  final double x0;
  final double x1;
  final double y0;
  final double y1;
  private final boolean logX;
  final int top;
  final int height;

  Svg(String id, String title, double x0, double x1, boolean logX, double y0, double y1) {
    this(id, title, x0, x1, logX, y0, y1, TOP, H - TOP - BOTTOM, H);
  }

  /** A plot area {@code height} high starting at {@code top}, in an SVG {@code svgHeight} high. */
  Svg(String id, String title, double x0, double x1, boolean logX, double y0, double y1, int top, int height, int svgHeight) {
    this.logX = logX;
    this.x0 = logX ? Math.log10(x0) : x0;
    this.x1 = logX ? Math.log10(x1) : x1;
    this.y0 = y0;
    this.y1 = y1 > y0 ? y1 : y0 + 1;
    this.top = top;
    this.height = height;
    sb.append("<svg id=\"").append(id).append("\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ")
        .append(W).append(' ').append(svgHeight).append("\" width=\"").append(W).append("\" height=\"").append(svgHeight)
        .append("\" role=\"img\" aria-label=\"").append(Html.esc(title)).append("\">");
    sb.append("<title>").append(Html.esc(title)).append("</title>");
    text(LEFT, 16, title, "title", "start");
  }

  double px(double x) {
    double v = logX ? Math.log10(Math.max(x, 1e-9)) : x;
    double span = x1 - x0 == 0 ? 1 : x1 - x0;
    return LEFT + (v - x0) / span * (W - LEFT - RIGHT);
  }

  double py(double y) {
    return top + height - (y - y0) / (y1 - y0) * height;
  }

  Svg raw(String s) {
    sb.append(s);
    return this;
  }

  Svg text(double x, double y, String s, String cls, String anchor) {
    sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" class=\"%s\" text-anchor=\"%s\">", x, y, cls, anchor))
        .append(Html.esc(s)).append("</text>");
    return this;
  }

  Svg line(double xa, double ya, double xb, double yb, String cls) {
    sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"%s\"/>", xa, ya, xb, yb, cls));
    return this;
  }

  Svg rect(double x, double y, double w, double h, String cls, String tip) {
    sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"%s\">", x, y,
        Math.max(0, w), Math.max(0, h), cls));
    if (!tip.isEmpty()) {
      sb.append("<title>").append(Html.esc(tip)).append("</title>");
    }
    sb.append("</rect>");
    return this;
  }

  /** Axes with ticks; labels under the x axis and beside the y axis. */
  Svg axes(String xLabel, String yLabel, java.util.function.DoubleFunction<String> xFmt, java.util.function.DoubleFunction<String> yFmt) {
    double bottom = top + height;
    line(LEFT, bottom, W - RIGHT, bottom, "axis");
    line(LEFT, top, LEFT, bottom, "axis");
    for (double t : ticks(y0, y1, 5)) {
      double y = py(t);
      line(LEFT, y, W - RIGHT, y, "gridline");
      text(LEFT - 6, y + 4, yFmt.apply(t), "tick", "end");
    }
    if (logX) {
      for (double e = Math.ceil(x0); e <= x1 + 1e-9; e++) {
        double v = Math.pow(10, e);
        for (double m : new double[] {1, 2, 5}) {
          double t = v * m;
          if (Math.log10(t) <= x1 + 1e-9 && Math.log10(t) >= x0 - 1e-9) {
            line(px(t), bottom, px(t), bottom + 4, "axis");
            text(px(t), bottom + 16, xFmt.apply(t), "tick", "middle");
          }
        }
      }
    } else {
      for (double t : ticks(x0, x1, 6)) {
        line(px(t), bottom, px(t), bottom + 4, "axis");
        text(px(t), bottom + 16, xFmt.apply(t), "tick", "middle");
      }
    }
    text((LEFT + W - RIGHT) / 2.0, bottom + 34, xLabel, "label", "middle");
    sb.append(String.format(Locale.ROOT, "<text class=\"label\" text-anchor=\"middle\" transform=\"translate(14 %.1f) rotate(-90)\">",
        top + height / 2.0)).append(Html.esc(yLabel)).append("</text>");
    return this;
  }

  /** Round tick values covering [lo, hi]. */
  static double[] ticks(double lo, double hi, int n) {
    double span = hi - lo;
    if (!(span > 0)) {
      return new double[] {lo};
    }
    double raw = span / n;
    double mag = Math.pow(10, Math.floor(Math.log10(raw)));
    double step = raw / mag < 1.5 ? mag : raw / mag < 3 ? 2 * mag : raw / mag < 7 ? 5 * mag : 10 * mag;
    double first = Math.ceil(lo / step) * step;
    int count = (int) Math.floor((hi - first) / step + 1e-9) + 1;
    double[] t = new double[Math.max(0, count)];
    for (int i = 0; i < t.length; i++) {
      t[i] = first + i * step;
    }
    return t;
  }

  String end() {
    return sb.append("</svg>").toString();
  }
}
