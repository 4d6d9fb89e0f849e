"""One resolver of a notebook's plan (DESIGN section 16): the templates' fields, where each
template comes from (the surface's setting, then the environment, then the defaults), and a
template that is not one said in one line naming where it came from."""

import getpass
from pathlib import Path

import pytest

from jupyter_plans.errors import PlanStoreError
from jupyter_plans.store.locate import for_command, resolve


def test_the_defaults_are_the_file_beside_and_its_current_session(tmp_path):
    where = resolve(tmp_path / "work" / "sales.ipynb", environ={})
    assert where.database == str(tmp_path / "work" / "sales.plans.sqlite")
    assert where.session is None
    assert (where.database_from, where.session_from) == ("default", "default")
    assert where.beside and not where.follows_name


def test_every_field(tmp_path):
    template = "{notebook_dir}|{notebook_stem}|{notebook_name}|{home}|{notebook_path}|{user}"
    where = resolve(
        tmp_path / "team" / "q3" / "sales.ipynb",
        database="x.sqlite",
        session_id=template,
        root=tmp_path / "team",
        environ={"JUPYTERHUB_USER": "ann"},
    )
    assert where.session.split("|") == [
        str(tmp_path / "team" / "q3"),
        "sales",
        "sales.ipynb",
        str(Path.home()),
        "q3/sales.ipynb",
        "ann",
    ]
    assert where.follows_name


def test_the_path_is_absolute_without_a_root_and_the_user_is_the_systems(tmp_path):
    where = resolve(tmp_path / "a.ipynb", "db.sqlite", "{user}/{notebook_path}", environ={})
    assert where.session == f"{getpass.getuser()}/{(tmp_path / 'a.ipynb').as_posix()}"


def test_the_root_comes_from_the_environment_the_server_gives(tmp_path):
    environ = {
        "JUPYTER_PLANS_SERVER_ROOT": str(tmp_path),
        "JUPYTER_PLANS_SESSION_ID": "{notebook_path}",
    }
    assert resolve(tmp_path / "sub" / "a.ipynb", environ=environ).session == "sub/a.ipynb"
    outside = resolve(Path("/elsewhere/b.ipynb"), environ=environ).session
    assert outside == "/elsewhere/b.ipynb"


def test_the_setting_wins_over_the_environment_which_wins_over_the_default(tmp_path):
    environ = {
        "JUPYTER_PLANS_DATABASE": "postgresql+psycopg://ann:secret@db/plans",
        "JUPYTER_PLANS_SESSION_ID": "{notebook_stem}",
    }
    from_env = resolve(tmp_path / "a.ipynb", environ=environ)
    assert from_env.database == environ["JUPYTER_PLANS_DATABASE"]
    assert (from_env.session, from_env.database_from, from_env.session_from) == (
        "a",
        "environment",
        "environment",
    )
    assert from_env.shown() == "postgresql+psycopg://ann:***@db/plans"
    assert not from_env.beside
    set_here = resolve(tmp_path / "a.ipynb", str(tmp_path / "t.sqlite"), "s", environ=environ)
    assert (set_here.database, set_here.session) == (str(tmp_path / "t.sqlite"), "s")
    assert (set_here.database_from, set_here.session_from) == ("setting", "setting")


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"database": "{notebook}.sqlite"}, "c.PlanMagics.database"),
        ({"environ": {"JUPYTER_PLANS_SESSION_ID": "{oops"}}, "$JUPYTER_PLANS_SESSION_ID"),
    ],
)
def test_a_template_that_is_not_one_is_refused_in_one_line(tmp_path, given, named):
    environ = given.pop("environ", {})
    with pytest.raises(PlanStoreError) as refused:
        resolve(
            tmp_path / "a.ipynb",
            **given,
            names=("c.PlanMagics.database", "c.PlanMagics.session_id"),
            environ=environ,
        )
    text = str(refused.value)
    assert text.startswith(f"{named} is ") and "{notebook_path}" in text and "\n" not in text


def test_a_password_in_a_refused_template_is_hidden(tmp_path):
    with pytest.raises(PlanStoreError) as refused:
        resolve(tmp_path / "a.ipynb", "postgresql://ann:secret@db/{x}", environ={})
    assert "secret" not in str(refused.value) and "ann:***@db" in str(refused.value)


def test_a_command_line_without_a_notebook_takes_db_as_it_is(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_PLANS_SESSION_ID", "{notebook_stem}")
    where = for_command(None, str(tmp_path / "{odd}.sqlite"), None)
    assert (where.database, where.session) == (str(tmp_path / "{odd}.sqlite"), None)
    with_notebook = for_command(str(tmp_path / "a.ipynb"), None, None)
    assert with_notebook.session == "a" and with_notebook.session_from == "environment"
    given = for_command(str(tmp_path / "a.ipynb"), None, "mine")
    assert (given.session, given.session_from) == ("mine", "setting")
