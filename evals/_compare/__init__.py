"""Runs compared: two side by side with paired tests, many against one baseline, and a comparison's ``--max-drop`` gates."""
