"""What an ending action says to the user: the episode's `final_thought` (Appendix I)."""

from __future__ import annotations

from humantrace.agentruns.protocol import final_message


def test_the_reason_of_report_infeasible_is_the_final_thought():
    assert final_message("report_infeasible('The shop has no such order.')") == "The shop has no such order."
    assert final_message("send_msg_to_user('Done: order o-7 returned.')") == "Done: order o-7 returned."
    # An agent's own done alias, and the message of a multi-action step (its last ending call).
    assert final_message("finish('all set')") == "all set"
    assert final_message("click('12')\nreport_infeasible('no button')") == "no button"
    # Actions that end nothing say nothing; neither does a done verb without text.
    assert final_message("click('12')") is None
    assert final_message("fill('12', 'Ada')") is None
    assert final_message("send_msg_to_user()") is None
    assert final_message("not python (") is None
