import jinja2
import pytest

from registry.core.templating import code_spans, counted, render


def test_counted_uses_the_singular_for_one_only():
    assert counted(1, "tool") == "1 tool"
    assert counted(0, "tool") == "0 tools"
    assert counted(2, "entity", "entities") == "2 entities"


def test_code_spans_escape_before_marking_up():
    shown = code_spans("Names `open_nodes`; `<script>alert(1)</script>` and a lone ` tick")
    assert shown == (
        "Names <code>open_nodes</code>; <code>&lt;script&gt;alert(1)&lt;/script&gt;</code> and a lone ` tick"
    )


def test_code_spans_are_not_escaped_twice_in_an_autoescaped_template(tmp_path):
    (tmp_path / "probe.html.j2").write_text("<p>{{ text | code_spans }}</p>")
    page = render("probe.html.j2", user_dir=str(tmp_path), text='say `a<b` & "c"')
    assert page == "<p>say <code>a&lt;b</code> &amp; &#34;c&#34;</p>"


def test_dict_keys_read_as_attributes_and_dict_methods_stay_methods(tmp_path):
    (tmp_path / "probe.html.j2").write_text(
        "{{ row.name }}|{% for key, value in row.items() %}{{ key }}={{ value }};{% endfor %}"
    )
    page = render("probe.html.j2", user_dir=str(tmp_path), row={"name": "<b>", "items": "shadowed"})
    assert page == "&lt;b&gt;|name=&lt;b&gt;;items=shadowed;"


def test_a_missing_dict_key_is_an_error_not_an_empty_string(tmp_path):
    (tmp_path / "probe.html.j2").write_text("{{ row.absent }}")
    with pytest.raises(jinja2.UndefinedError, match="absent"):
        render("probe.html.j2", user_dir=str(tmp_path), row={"name": "x"})
