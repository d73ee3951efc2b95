"""Settings for every test.

rankwise's CLI keeps a class archive of Spark's JVM per installation in the user's cache
(``rankwise.spark.class_archive``): the tests that run the CLI in a process of its own would write one there
(about 170 MB, and about 15 s to record it). They run without; tests/spark/test_class_archive.py gives its own
cache folder and switch.
"""
import os

os.environ["RANKWISE_SPARK_CLASS_ARCHIVE"] = "off"
