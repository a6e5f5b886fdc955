"""Runs from pystats-startup.pth when -X pystats or PYTHONSTATS asks for
collection: turns it on before the main module runs."""
import pystats

pystats._start_from_hook()
