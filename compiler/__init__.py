"""trainspec: declarative training-job specs compiled to Vertex AI and AI Platform Training requests.

A regular package (not a namespace package), so an editable install beside a second checkout
never mixes the files of both.
"""
