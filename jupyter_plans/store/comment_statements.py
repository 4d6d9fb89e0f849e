"""The statements of the person's comments (session/comments.py), named as statements.py's are
and read through it."""

from sqlalchemy import bindparam, func, insert, or_, select, update

from .schema import comments

_SID = bindparam("sid")

# The person's comments (session/comments.py).
_COMMENTS_OF = comments.c.session_id == _SID
_COMMENT = (
    comments.c.number,
    comments.c.step_id,
    comments.c.anchor,
    comments.c.text,
    comments.c.by,
    comments.c.status,
    comments.c.reply,
    comments.c.status_seq,
)
# Written as equalities, not IN: the statements are compiled ahead, with no list to expand.
_UNRESOLVED = or_(comments.c.status == "open", comments.c.status == "addressed")
# In no order: the status index finds them however many were resolved (the callers sort).
SELECT_UNRESOLVED_COMMENTS = select(*_COMMENT).where(_COMMENTS_OF, _UNRESOLVED)
SELECT_RESOLVED_COMMENTS = (
    select(*_COMMENT)
    .where(_COMMENTS_OF, comments.c.status == "resolved")
    .order_by(comments.c.status_seq.desc())
    .limit(bindparam("limit"))
)
SELECT_ALL_COMMENTS = select(*_COMMENT).where(_COMMENTS_OF).order_by(comments.c.number)
SELECT_COMMENT = select(*_COMMENT).where(_COMMENTS_OF, comments.c.number == bindparam("number"))
SELECT_COMMENTS_OPENED_AFTER = select(*_COMMENT).where(
    _COMMENTS_OF, comments.c.status == "open", comments.c.opened_seq > bindparam("after")
)
# The next comment's number, how many are not resolved and how many open, in one read.
COMMENT_COUNTS = select(
    select(func.coalesce(func.max(comments.c.number), 0))
    .where(_COMMENTS_OF)
    .scalar_subquery()
    .label("last_number"),
    select(func.count()).where(_COMMENTS_OF, _UNRESOLVED).scalar_subquery().label("unresolved"),
    select(func.count())
    .where(_COMMENTS_OF, comments.c.status == "open")
    .scalar_subquery()
    .label("open"),
)
INSERT_COMMENT = insert(comments)
_THIS_COMMENT = (_COMMENTS_OF, comments.c.number == bindparam("b_number"))
SET_COMMENT_STATUS = (
    update(comments)
    .where(*_THIS_COMMENT)
    .values(status=bindparam("b_status"), status_seq=bindparam("b_seq"))
)
REOPEN_COMMENT = (
    update(comments)
    .where(*_THIS_COMMENT)
    .values(status="open", status_seq=bindparam("b_seq"), opened_seq=bindparam("b_seq"))
)
ADDRESS_COMMENT = (
    update(comments)
    .where(*_THIS_COMMENT)
    .values(status="addressed", reply=bindparam("b_reply"), status_seq=bindparam("b_seq"))
)
