"""Where a kernel finds its notebook's plan (DESIGN section 16): c.PlanMagics.* first, then
JUPYTER_PLANS_DATABASE and JUPYTER_PLANS_SESSION_ID (which a Jupyter server gives the kernels
it starts), then the plan file beside the notebook; {notebook_path} from the server's root."""

import jupyter_plans


def load(ip, notebook):
    ip.user_ns["__session__"] = str(notebook)
    ip.run_line_magic("load_ext", "jupyter_plans")
    return jupyter_plans.current_session()


def test_the_environment_places_the_plan_and_nothing_is_made_beside(ip, tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_PLANS_DATABASE", str(tmp_path / "team.plans.sqlite"))
    monkeypatch.setenv("JUPYTER_PLANS_SESSION_ID", "{notebook_path}")
    monkeypatch.setenv("JUPYTER_PLANS_SERVER_ROOT", str(tmp_path))
    (tmp_path / "q3").mkdir()
    session = load(ip, tmp_path / "q3" / "sales.ipynb")
    session.on()
    assert session.store.path == tmp_path / "team.plans.sqlite"
    assert session.session_id == "q3/sales.ipynb"
    assert list((tmp_path / "q3").iterdir()) == []
    where = ip.magics_manager.registry["PlanMagics"].where
    assert (where.database_from, where.session_from) == ("environment", "environment")


def test_the_kernels_setting_wins_over_the_environment(ip, tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_PLANS_DATABASE", str(tmp_path / "team.plans.sqlite"))
    monkeypatch.setenv("JUPYTER_PLANS_SESSION_ID", "{notebook_path}")
    ip.config.PlanMagics.database = str(tmp_path / "mine.plans.sqlite")
    ip.config.PlanMagics.session_id = "{user}-{notebook_stem}"
    session = load(ip, tmp_path / "sales.ipynb")
    assert session.store.path == tmp_path / "mine.plans.sqlite"
    assert session.session_id.endswith("-sales")
    assert not (tmp_path / "team.plans.sqlite").exists()


def test_a_bad_template_in_the_environment_is_one_line_naming_it(ip, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("JUPYTER_PLANS_SESSION_ID", "{notebook}")
    ip.user_ns["__session__"] = str(tmp_path / "sales.ipynb")
    capsys.readouterr()
    ip.run_line_magic("load_ext", "jupyter_plans")
    err = capsys.readouterr().err
    assert err.startswith("jupyter_plans: $JUPYTER_PLANS_SESSION_ID is '{notebook}'")
    assert len(err.strip().splitlines()) == 1
