"""Knowledge sources: MISSING, EMPTY and UNREADABLE, checked before a chat run starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from surefoot import KnowledgeNotReadyError, KnowledgeProblem
from surefoot.agent import Agent
from surefoot.llm import LLMClient
from surefoot.testing.faults import FaultServer

M, E, U = KnowledgeProblem.MISSING, KnowledgeProblem.EMPTY, KnowledgeProblem.UNREADABLE


def problem(agent: Agent) -> KnowledgeNotReadyError:
    with pytest.raises(KnowledgeNotReadyError) as info:
        agent.check_knowledge()
    assert info.value.host == agent.name
    return info.value


def test_ready_sources(tmp_path: Path) -> None:
    (tmp_path / "doc.md").write_text("# Paris\nsunny")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "a.txt").write_text("")
    (tmp_path / "dir" / "b.txt").write_text("text")
    agent = Agent("kb")
    agent.knowledge(tmp_path / "doc.md")
    src = agent.knowledge(str(tmp_path / "dir"))
    agent.knowledge(lambda: b"fetched page", name="https://example.test/page")
    assert src.kind == "directory"
    agent.check_knowledge()


@pytest.mark.parametrize(
    ("make", "expected", "text"),
    [
        (lambda p: p / "nope.md", M, "does not exist"),
        (lambda p: p / "gone", M, "does not exist"),
    ],
)
def test_missing_paths(tmp_path: Path, make: object, expected: KnowledgeProblem, text: str) -> None:
    agent = Agent()
    agent.knowledge(make(tmp_path), kind="file")  # type: ignore[operator]
    err = problem(agent)
    assert err.problem is expected and text in str(err)


def test_missing_callable_result() -> None:
    agent = Agent()
    agent.knowledge(lambda: None, name="wiki")
    err = problem(agent)
    assert err.problem is M and err.source == "wiki"


def test_empty_sources(tmp_path: Path) -> None:
    (tmp_path / "empty.md").write_bytes(b"")
    (tmp_path / "blank.md").write_text("  \n")
    (tmp_path / "emptydir").mkdir()
    (tmp_path / "dir_of_empties").mkdir()
    (tmp_path / "dir_of_empties" / "x.txt").write_bytes(b"")
    for source in ("empty.md", "blank.md", "emptydir", "dir_of_empties"):
        agent = Agent()
        agent.knowledge(tmp_path / source)
        assert problem(agent).problem is E, source
    agent = Agent()
    agent.knowledge(lambda: "   ", name="fetch")
    assert problem(agent).problem is E


def test_unreadable_sources(tmp_path: Path) -> None:
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9 \xff\xfe")
    (tmp_path / "adir").mkdir()
    (tmp_path / "adir" / "ok.txt").write_text("fine")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "x.bin").write_bytes(b"\xff\xfe\xfd")
    (tmp_path / "file.txt").write_text("text")
    cases = [
        (tmp_path / "latin1.txt", None, "not utf-8 text"),
        (tmp_path / "adir", "file", "IsADirectoryError"),  # a directory passed as a file
        (tmp_path / "file.txt", "directory", "NotADirectoryError"),
        (tmp_path / "bad", None, "not utf-8 text"),
    ]
    for source, kind, text in cases:
        agent = Agent()
        agent.knowledge(source, kind=kind)  # type: ignore[arg-type]
        err = problem(agent)
        assert err.problem is U and text in str(err), (source, str(err))
        assert err.__cause__ is not None

    def fetch() -> str:
        raise ConnectionRefusedError("docs server down")

    agent = Agent()
    agent.knowledge(fetch)
    err = problem(agent)
    assert err.problem is U and isinstance(err.__cause__, ConnectionRefusedError)
    agent = Agent()
    agent.knowledge(lambda: 42, name="n")
    assert problem(agent).problem is U


async def test_async_callable_source() -> None:
    async def fetch() -> str:
        return ""

    agent = Agent()
    agent.knowledge(fetch)
    with pytest.raises(KnowledgeNotReadyError) as info:
        await agent.acheck_knowledge()
    assert info.value.problem is E
    with pytest.raises(TypeError, match="acheck_knowledge"):
        agent.check_knowledge()


def test_bad_declarations(tmp_path: Path) -> None:
    agent = Agent()
    with pytest.raises(ValueError, match="looks like a URL"):
        agent.knowledge("https://example.test/docs")
    with pytest.raises(TypeError, match="knowledge source"):
        agent.knowledge(42)  # type: ignore[arg-type]
    with pytest.raises(LookupError):
        agent.knowledge(tmp_path, encoding="nope")


def test_chat_checks_knowledge_before_the_run(tmp_path: Path) -> None:
    with FaultServer() as srv:
        client = LLMClient(base_url=srv.base_url + "/v1", model="m1", api_key="k")
        agent = Agent(llm=client)
        agent.knowledge(tmp_path / "missing.md")
        with pytest.raises(KnowledgeNotReadyError):
            agent.chat("hello")
        assert len(srv.requests) == 0
        client.close()
