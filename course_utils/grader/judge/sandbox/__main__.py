from course_utils.grader.judge.sandbox.launcher import main

main()
