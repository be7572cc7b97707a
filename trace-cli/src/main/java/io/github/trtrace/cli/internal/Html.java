package io.github.trtrace.cli.internal;

/** HTML escaping of text taken from logs. */
final class Html {
  private Html() {}

  /** Escapes markup characters and shows control and format characters as visible escapes. */
  static String esc(String s) {
    String v = Fmt.visible(s);
    StringBuilder sb = new StringBuilder(v.length() + 8);
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      switch (c) {
        case '<': sb.append("&lt;"); break;
        case '>': sb.append("&gt;"); break;
        case '&': sb.append("&amp;"); break;
        case '"': sb.append("&quot;"); break;
        case '\'': sb.append("&#39;"); break;
        default: sb.append(c);
      }
    }
    return sb.toString();
  }
}
